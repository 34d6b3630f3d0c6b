import type { CallRecordData, LegSummary, LegView } from '../switch/types.js';

/**
 * The contact center's one outbound port: the switch's ACD commands, the reads it needs, and the
 * tenant's queue. The other direction is one channel of switch facts (src/switch/switch-facts.ts)
 * that the contact center hears on that same queue. Kept as an interface so the domain can be
 * unit-tested with a small fake (test/unit/contact-center/fake-switch.ts).
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
  /**
   * Grows with every change of the switch's live state (a leg, presence, a registration, a reset):
   * what reads built from its legs (an agent's phone state) are kept on.
   */
  stateGeneration(): number;
  /** Whether the tenant has a leg here that has not ended (or a turn under way): one index lookup. */
  hasLiveCalls(tenantId: number): boolean;
  /** The tenant's live calls, each as its record would read if it ended now. */
  liveCallRecords(tenantId: number): CallRecordData[];
  liveCallRecord(tenantId: number, smdrCallId: string): CallRecordData | undefined;
  /** Runs a command on the tenant's queue; the facts it causes are heard when the turn ends. */
  onQueue<T>(tenantId: number, command: () => T): T;
  /** Runs `fn` on the tenant's queue after the facts already waiting there. */
  later(tenantId: number, fn: () => void): void;
  /** Runs `fn` at the end of the tenant's current turn, once every fact has been heard. */
  whenSettled(tenantId: number, fn: () => void): void;
}
