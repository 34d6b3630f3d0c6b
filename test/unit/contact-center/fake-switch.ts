import type { CallState, LegSummary, LegView } from '../../../src/switch/types.js';
import type { AcdSwitch } from '../../../src/contact-center/switch-port.js';

/** A switch stand-in that records the contact center's commands and keeps agent legs. */
export class FakeSwitch implements AcdSwitch {
  readonly log: string[] = [];
  private readonly agentLegs = new Map<string, LegView[]>();
  private seq = 1000;
  failOffersTo = new Set<string>();

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

  setLeg(ext: string, smdrCallId: string, state: CallState): LegView {
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
    this.agentLegs.set(
      ext,
      (this.agentLegs.get(ext) ?? []).filter((l) => l.smdrCallId !== smdrCallId),
    );
  }
}
