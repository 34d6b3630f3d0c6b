/**
 * The switch's ACD port: how the switch hands queue calls to the contact center. The switch calls
 * these methods; the contact center answers by calling the switch's ACD commands
 * (`offerQueuedCall`, `withdrawOffer`, `redirectQueuedCall`, `endCall`, `setAcdSignedIn`).
 */
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

export interface AcdPort {
  /** A call arrived at an ACD extension and waits (caller leg state `queued`). */
  callQueued(call: QueuedCall): void;
  /** An agent answered the offer: the call is connected to that agent. */
  offerAnswered(smdrCallId: string, agentExt: string, at: number): void;
  /** The agent's offer ended without answer (rejected/deflected by the phone, device unregistered). */
  offerFailed(smdrCallId: string, agentExt: string, reason: string, at: number): void;
  /** The caller left while waiting or ringing (abandon) or the call was ended. */
  callEnded(smdrCallId: string, at: number): void;
}

/** Until a contact center is plugged in, queue calls simply wait. */
export const waitingAcdPort: AcdPort = {
  callQueued() {},
  offerAnswered() {},
  offerFailed() {},
  callEnded() {},
};
