/**
 * What the switch tells the contact center: one channel of typed facts, delivered on the owning
 * tenant's queue (tenant-queue.ts) in the order the switch produced them. The facts are the
 * switch's domain events (also published on the bus for the APIs' sockets) and the ACD facts,
 * which only the contact center hears. The contact center answers by commands on the switch
 * (`offerQueuedCall`, `withdrawOffer`, `redirectQueuedCall`, `endCall`, `setAcdSignedIn`), so a
 * tenant's whole contact center runs where that tenant's queue runs.
 */
import type { SwitchEvent } from './types.js';

export interface QueuedCall {
  tenantId: number;
  /** The ACD extension, e.g. `500`. */
  acdExt: string;
  smdrCallId: string;
  /** The waiting caller's leg. */
  callerLegId: string;
  callerNumber: string;
  callerName: string;
  /** Number the caller dialed (a DID or the ACD extension). */
  dialed: string;
  at: number;
}

interface AcdFactBase<N extends string> {
  type: 'acd';
  name: N;
  tenantId: number;
  at: number;
}

export type AcdFact =
  /** A call arrived at an ACD extension and waits (caller leg state `queued`). */
  | (AcdFactBase<'callQueued'> & { call: QueuedCall })
  /** An agent answered the offer: the call is connected to that agent. */
  | (AcdFactBase<'offerAnswered'> & { smdrCallId: string; agentExt: string })
  /** The agent's offer ended without answer (rejected/deflected by the phone, device unregistered). */
  | (AcdFactBase<'offerFailed'> & { smdrCallId: string; agentExt: string; reason: string })
  /** A call that went through a queue ended (the caller left while waiting or ringing, or it was ended). */
  | (AcdFactBase<'queueCallEnded'> & { smdrCallId: string });

export type SwitchFact = SwitchEvent | AcdFact;

export type FactListener = (fact: SwitchFact) => void;
