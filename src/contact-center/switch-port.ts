import type { LegSummary, LegView } from '../switch/types.js';

/**
 * The part of the switch the contact center drives (see src/switch/acd-port.ts for the other
 * direction). Kept as an interface so the domain can be unit-tested with a small fake.
 */
export interface AcdSwitch {
  /** Rings the agent with a waiting queue call. */
  offerQueuedCall(smdrCallId: string, agentExt: string): unknown;
  /** Ring-no-answer: stops ringing the agent; the call waits again. */
  withdrawOffer(smdrCallId: string, agentExt: string, reason: string): void;
  /** Sends a waiting call to an extension, an ACD extension or an outside number. */
  redirectQueuedCall(smdrCallId: string, target: string): void;
  endCall(smdrCallId: string, reason?: string): void;
  setAcdSignedIn(tenantId: number, ext: string, signedIn: boolean): void;
  makeCall(cmd: {
    tenantId: number;
    fromExt: string;
    to: string;
    callerId?: { number: string; name: string };
  }): LegView;
  legsOf(tenantId: number, ext: string): LegView[];
  legs(tenantId: number): LegView[];
  liveLegs(tenantId: number, ext?: string): LegSummary[];
}
