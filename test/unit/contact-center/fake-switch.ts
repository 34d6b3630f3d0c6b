import type { AcdSwitch } from '../../../src/contact-center/switch-port.js';
import type { FactListener, SwitchFact } from '../../../src/switch/switch-facts.js';
import { TenantQueue } from '../../../src/switch/tenant-queue.js';
import type { CallRecordData, CallState, LegSummary, LegView } from '../../../src/switch/types.js';

/**
 * A switch stand-in that records the contact center's commands and keeps agent legs. It has the
 * real tenant queue: facts told to it are heard on that queue, after the command that told them.
 */
export class FakeSwitch implements AcdSwitch {
  readonly log: string[] = [];
  private readonly agentLegs = new Map<string, LegView[]>();
  private seq = 1000;
  private legChanges = 0;
  failOffersTo = new Set<string>();
  /** Failures of fact listeners and deferred work (the real switch reports them too). */
  readonly errors: unknown[] = [];
  private listener: FactListener = () => {};
  private readonly queue = new TenantQueue<SwitchFact>(
    (f) => this.listener(f),
    (e) => this.errors.push(e),
  );
  /** Live calls that are not the contact center's, by smdrCallId. */
  readonly otherCalls = new Map<string, CallRecordData>();

  setFactListener(listener: FactListener): void {
    this.listener = listener;
  }
  /** As the switch does: the fact is heard on its tenant's queue, when the current turn delivers. */
  tell(fact: SwitchFact): void {
    this.queue.defer(fact.tenantId, fact);
  }
  onQueue<T>(tenantId: number, command: () => T): T {
    return this.queue.run(tenantId, command);
  }
  later(tenantId: number, fn: () => void): void {
    this.queue.defer(tenantId, fn);
  }
  whenSettled(tenantId: number, fn: () => void): void {
    this.queue.whenSettled(tenantId, fn);
  }
  inTurn(tenantId: number): boolean {
    return this.queue.inTurn(tenantId);
  }
  liveCallRecords(tenantId: number): CallRecordData[] {
    return [...this.otherCalls.values()].filter((r) => r.tenantId === tenantId);
  }
  hasLiveCalls(tenantId: number): boolean {
    return this.liveCallRecords(tenantId).length > 0 || this.inTurn(tenantId);
  }
  liveCallRecord(tenantId: number, smdrCallId: string): CallRecordData | undefined {
    const r = this.otherCalls.get(smdrCallId);
    return r?.tenantId === tenantId ? r : undefined;
  }

  offerQueuedCall(smdrCallId: string, agentExt: string): LegView {
    if (this.failOffersTo.has(agentExt)) throw new Error('unreachable');
    this.log.push(`offer ${smdrCallId} ${agentExt}`);
    return this.setLeg(agentExt, smdrCallId, 'ringing');
  }
  withdrawOffer(smdrCallId: string, agentExt: string, reason: string): void {
    this.log.push(`withdraw ${smdrCallId} ${agentExt} ${reason}`);
    this.dropLeg(agentExt, smdrCallId);
  }
  redirectQueuedCall(smdrCallId: string, target: string): void {
    this.log.push(`redirect ${smdrCallId} ${target}`);
  }
  endCall(smdrCallId: string, reason?: string): void {
    this.log.push(`end ${smdrCallId} ${reason ?? ''}`.trim());
    for (const ext of this.agentLegs.keys()) this.dropLeg(ext, smdrCallId);
  }
  setAcdSignedIn(tenantId: number, ext: string, signedIn: boolean): void {
    this.log.push(`acd ${tenantId} ${ext} ${signedIn ? 'in' : 'out'}`);
  }
  makeCall(cmd: {
    tenantId: number;
    fromExt: string;
    to: string;
    callerId?: { number: string; name: string };
  }) {
    const smdr = String(++this.seq);
    this.log.push(`make ${cmd.fromExt} ${cmd.to} ${cmd.callerId?.number ?? ''}`);
    return this.setLeg(cmd.fromExt, smdr, 'dialing');
  }
  legsOf(_tenantId: number, ext: string): LegView[] {
    return this.agentLegs.get(ext) ?? [];
  }
  legs(_tenantId: number): LegView[] {
    return [...this.agentLegs.values()].flat();
  }
  liveLegs(tenantId: number, ext?: string): LegSummary[] {
    return (ext === undefined ? this.legs(tenantId) : this.legsOf(tenantId, ext)).filter(
      (l) => l.state !== 'ended',
    );
  }

  stateGeneration(): number {
    return this.legChanges;
  }

  setLeg(ext: string, smdrCallId: string, state: CallState): LegView {
    this.legChanges++;
    const legs = (this.agentLegs.get(ext) ?? []).filter((l) => l.smdrCallId !== smdrCallId);
    const leg: LegView = {
      callObserverId: `${smdrCallId}${ext}`,
      smdrCallId,
      tenantId: 1001,
      account: `${ext}@1001`,
      ext,
      state,
      direction: 'incoming',
      from: '',
      to: ext,
      digitsDialed: ext,
      startTime: 0,
      talkDurationMs: 0,
      redirected: false,
      transferred: false,
      callParties: [],
    };
    legs.push(leg);
    this.agentLegs.set(ext, legs);
    return leg;
  }
  dropLeg(ext: string, smdrCallId: string): void {
    this.legChanges++;
    this.agentLegs.set(
      ext,
      (this.agentLegs.get(ext) ?? []).filter((l) => l.smdrCallId !== smdrCallId),
    );
  }
}
