/**
 * The switch: the live telephony engine behind both APIs and the simulator. Every command runs
 * on its tenant's serialized queue (tenant-queue.ts) and leaves as typed domain events.
 * See docs/switch.md.
 */
import { accountId } from '../core/accounts.js';
import { invalid, notFound } from '../core/errors.js';
import type { DirectoryChange } from '../directory/directory.js';
import type { Device, Extension } from '../directory/model.js';
import * as acd from './acd.js';
import { callRequest } from './call-requests.js';
import { Core, type SwitchDeps } from './core.js';
import * as durable from './durable.js';
import type { DurableCall } from './durable.js';
import { endLeg, SYSTEM } from './lifecycle.js';
import { type Leg, summary, view } from './model.js';
import { buildRecord } from './records.js';
import * as origination from './origination.js';
import * as outside from './outside.js';
import * as phones from './phones.js';
import { findDevice } from './phones.js';
import { parkStatus, snapshot } from './snapshot.js';
import type { FactListener } from './switch-facts.js';
import type {
  CallRecordData,
  CallRequestCommand,
  LegSummary,
  LegView,
  MakeCallCommand,
  ParkLocationStatus,
  PresenceStatus,
  PstnBehaviour,
  PstnCallView,
  RetrieveParkedCommand,
  SimState,
} from './types.js';

export type { SwitchDeps } from './core.js';
export type { DurableCall } from './durable.js';

export interface TenantLoad {
  liveCalls: number;
  waitingCalls: number;
  pendingEffects: number;
}

/** Phone messages kept per device for the simulator's snapshot. */
export const MESSAGES_PER_DEVICE = 20;

export class Switch {
  private readonly core: Core;

  constructor(readonly deps: SwitchDeps) {
    this.core = new Core(deps);
    this.core.presence.rebuild(() => 0);
    deps.directory.onChange((c) => this.directoryChanged(c));
  }

  /** The one listener of the switch's facts (the contact center), called on the tenant's queue. */
  setFactListener(listener: FactListener): void {
    this.core.facts = listener;
  }

  // ---- the tenant's queue, for whoever acts on the switch's facts -------------------------

  /** Runs `command` on the tenant's queue; the facts it causes are delivered when the turn ends. */
  onQueue<T>(tenantId: number, command: () => T): T {
    return this.core.queue.run(tenantId, command);
  }

  /** Runs `fn` on the tenant's queue after the facts already waiting there. */
  later(tenantId: number, fn: () => void): void {
    this.core.queue.defer(tenantId, fn);
  }

  /** Runs `fn` at the end of the tenant's current turn, once every fact has been heard. */
  whenSettled(tenantId: number, fn: () => void): void {
    this.core.queue.whenSettled(tenantId, fn);
  }

  /** Is the tenant's queue taking its turn now? */
  inTurn(tenantId: number): boolean {
    return this.core.queue.inTurn(tenantId);
  }

  // ---- voice API commands ---------------------------------------------------------------

  makeCall(cmd: MakeCallCommand & { callerId?: { number: string; name: string } }): LegView {
    return this.runLeg(cmd.tenantId, () => origination.makeCall(this.core, cmd));
  }

  retrieveParkedCall(cmd: RetrieveParkedCommand): LegView {
    return this.runLeg(cmd.tenantId, () => origination.retrieveParked(this.core, cmd));
  }

  callRequest(cmd: CallRequestCommand): LegView | undefined {
    return this.core.queue.run(cmd.tenantId, () => {
      const leg = callRequest(this.core, cmd);
      return leg ? view(leg, this.core.now()) : undefined;
    });
  }

  // ---- reads ---------------------------------------------------------------------------

  leg(callObserverId: string): LegView | undefined {
    const l = this.core.reg.find(callObserverId);
    return l ? view(l, this.core.now()) : undefined;
  }

  legsOf(tenantId: number, ext: string): LegView[] {
    return this.views(this.core.reg.legsOf(accountId(ext, tenantId)));
  }

  legs(tenantId: number): LegView[] {
    return this.views(this.core.reg.legsOfTenant(tenantId));
  }

  /** The legs that have not ended, of one extension or (without `ext`) of the whole tenant. */
  liveLegs(tenantId: number, ext?: string): LegSummary[] {
    const out: LegSummary[] = [];
    for (const l of this.legsIn(tenantId, ext)) if (l.state !== 'ended') out.push(summary(l));
    return out;
  }

  /**
   * Whether a leg `liveLegs` lists has been answered: its talkDuration moves with the clock, so
   * a read that shows it cannot be kept. Allocates nothing.
   */
  hasAnsweredLiveLeg(tenantId: number, ext?: string): boolean {
    for (const l of this.legsIn(tenantId, ext))
      if (l.state !== 'ended' && l.answerTime !== undefined) return true;
    return false;
  }

  private legsIn(tenantId: number, ext: string | undefined): ReadonlySet<Leg> {
    return ext === undefined
      ? this.core.reg.legsOfTenant(tenantId)
      : this.core.reg.legsOf(accountId(ext, tenantId));
  }

  /**
   * A call of the tenant ended here within the last `ms`: its legs are still readable from this
   * node's memory only, so a cluster keeps the tenant here a moment longer (docs/cluster.md).
   */
  endedWithin(tenantId: number, ms: number): boolean {
    return this.core.reg.endedWithin(tenantId, ms);
  }

  /**
   * Whether the tenant has a call in progress (queued and parked ones included) or a turn under
   * way. Cheap: one index lookup. A cluster node hands a tenant over only when this is false.
   */
  hasLiveCalls(tenantId: number): boolean {
    return this.core.reg.legsOfTenant(tenantId).size > 0 || this.core.queue.inTurn(tenantId);
  }

  /** Per tenant: live calls, calls waiting in ACD queues, effects not yet delivered (metrics). */
  load(): Map<number, TenantLoad> {
    const out = new Map<number, TenantLoad>();
    const of = (t: number) => {
      let l = out.get(t);
      if (!l) out.set(t, (l = { liveCalls: 0, waitingCalls: 0, pendingEffects: 0 }));
      return l;
    };
    for (const call of this.core.reg.calls.values()) of(call.tenantId).liveCalls++;
    for (const [t, waiting] of this.core.reg.queued) of(t).waitingCalls += waiting.size;
    for (const [t, n] of this.core.queue.pending()) of(t).pendingEffects += n;
    return out;
  }

  presence(tenantId: number, ext: string): PresenceStatus {
    const s = this.core.presence.status(tenantId, ext);
    if (!s)
      throw notFound('EXTENSION_NOT_FOUND', `No user or location extension ${ext} in tenant ${tenantId}`);
    return s;
  }

  parkLocationStatus(tenantId: number, n: number): ParkLocationStatus {
    if (!this.core.dir.parkLocations(tenantId).includes(n)) {
      throw notFound('PARK_LOCATION_NOT_FOUND', `No park location PL${n} in tenant ${tenantId}`);
    }
    return parkStatus(this.core, tenantId, n);
  }

  /** The tenant's live calls, each as its record would read if it ended now (outcome aside). */
  liveCallRecords(tenantId: number): CallRecordData[] {
    const calls = new Set<Leg['call']>();
    for (const l of this.core.reg.legsOfTenant(tenantId)) calls.add(l.call);
    return [...calls].map(buildRecord);
  }

  liveCallRecord(tenantId: number, smdrCallId: string): CallRecordData | undefined {
    const call = this.core.reg.calls.get(smdrCallId);
    return call && call.tenantId === tenantId ? buildRecord(call) : undefined;
  }

  queuedCalls(tenantId: number, acdExt?: string): LegView[] {
    const waiting = this.core.reg.queued.get(tenantId)?.values() ?? [];
    return this.views([...waiting].filter((l) => acdExt === undefined || l.queue === acdExt));
  }

  // ---- presence and messages ------------------------------------------------------------

  setDnd(tenantId: number, ext: string, on: boolean): void {
    this.run(tenantId, () => {
      this.presence(tenantId, ext);
      this.core.presence.setDnd(tenantId, ext, on);
    });
  }

  setAcdSignedIn(tenantId: number, ext: string, signedIn: boolean): void {
    this.run(tenantId, () => {
      this.presence(tenantId, ext);
      this.core.presence.setAcd(tenantId, ext, signedIn);
    });
  }

  sendMessage(tenantId: number, deviceIds: string[], text: string, priority: string): void {
    this.run(tenantId, () => {
      const devices = deviceIds.map((id) => {
        const d = this.core.dir.device(id);
        if (!d || d.tenantId !== tenantId)
          throw notFound('DEVICE_NOT_FOUND', `No device ${id} in tenant ${tenantId}`);
        return d;
      });
      const at = this.core.now();
      for (const d of devices) {
        const kept = this.core.messages.get(d.id) ?? [];
        kept.push({ text, priority, at });
        if (kept.length > MESSAGES_PER_DEVICE) kept.splice(0, kept.length - MESSAGES_PER_DEVICE);
        this.core.messages.set(d.id, kept);
        this.core.emit({ type: 'phoneMessage', tenantId, deviceId: d.id, text, priority, at });
      }
    });
  }

  // ---- ACD commands (the contact center) --------------------------------------------------

  offerQueuedCall(smdrCallId: string, agentExt: string): LegView {
    return this.runLeg(this.tenantOfCall(smdrCallId), () => acd.offerQueued(this.core, smdrCallId, agentExt));
  }

  withdrawOffer(smdrCallId: string, agentExt: string, reason: string): void {
    this.run(this.tenantOfCall(smdrCallId), () => acd.withdrawOffer(this.core, smdrCallId, agentExt, reason));
  }

  redirectQueuedCall(smdrCallId: string, target: string): void {
    if (typeof target !== 'string') throw invalid('INVALID_TARGET', 'target must be a string');
    this.run(this.tenantOfCall(smdrCallId), () => acd.redirectQueued(this.core, smdrCallId, target));
  }

  endCall(smdrCallId: string, reason?: string): void {
    this.run(this.tenantOfCall(smdrCallId), () => {
      const call = this.core.reg.calls.get(smdrCallId);
      for (const l of [...(call?.legs ?? [])]) endLeg(this.core, l, SYSTEM, reason || 'killed');
    });
  }

  // ---- failover: live calls in durable form (durable.ts) ---------------------------------

  /** The durable form of a live call of the tenant; undefined once it has ended. */
  durableCall(tenantId: number, smdrCallId: string): DurableCall | undefined {
    const call = this.core.reg.calls.get(smdrCallId);
    return call && call.tenantId === tenantId ? durable.durableCall(call) : undefined;
  }

  /** Can this call, taken over from another node, go on waiting in its queue here? */
  canWaitOn(d: DurableCall): boolean {
    return durable.waitingCaller(this.core, d) !== undefined;
  }

  /** Recreates a waiting queue call taken over from another node; its lost offers end with `reason`. */
  restoreWaitingCall(d: DurableCall, reason: string): boolean {
    return this.core.queue.run(d.tenantId, () => durable.restoreWaitingCall(this.core, d, reason));
  }

  /** Recreates a call of a lost node and ends it with `reason`, its events and record as usual. */
  endLostCall(d: DurableCall, reason: string): void {
    this.run(d.tenantId, () => durable.endLostCall(this.core, d, reason));
  }

  /** An agent's ACD sign-in restored from durable state, without an event. */
  restoreAcdSignIn(tenantId: number, ext: string, signedIn: boolean): void {
    this.core.stateChanges++;
    this.core.presence.restoreAcd(tenantId, ext, signedIn);
  }

  /** Forgets the tenant's live state without events (this node no longer runs it). */
  dropTenant(tenantId: number): void {
    durable.dropTenant(this.core, tenantId);
  }

  /**
   * A phone of a tenant another node runs registered or unregistered there (its `device` event,
   * cluster): this node's answer to `isRegistered` follows, without events, so every node shows
   * the phone as its owner does.
   */
  noteRegistration(deviceId: string, registered: boolean): void {
    const d = this.core.dir.device(deviceId);
    if (d) this.core.presence.noteRegistered(d, registered);
  }

  // ---- simulator: phones ------------------------------------------------------------------

  deviceAnswer(deviceId: string, callObserverId?: string): LegView {
    const d = findDevice(this.core, deviceId);
    return this.runLeg(d.tenantId, () => phones.phoneAnswer(this.core, d, callObserverId));
  }

  deviceHangup(deviceId: string, callObserverId?: string): void {
    const d = findDevice(this.core, deviceId);
    this.run(d.tenantId, () => phones.phoneHangup(this.core, d, callObserverId));
  }

  deviceDial(deviceId: string, to: string): LegView {
    const d = findDevice(this.core, deviceId);
    return this.runLeg(d.tenantId, () => {
      phones.requireRegistered(this.core, d);
      return origination.deviceDial(this.core, d, to);
    });
  }

  /** DTMF from a phone (to an auto attendant menu it is connected to). */
  deviceDigits(deviceId: string, digits: string): void {
    const d = findDevice(this.core, deviceId);
    this.run(d.tenantId, () => phones.phoneDigits(this.core, d, digits));
  }

  /** The tenant's provisioned phone `deviceId`, if there is one. */
  deviceOf(tenantId: number, deviceId: string): Device | undefined {
    const d = this.core.dir.device(deviceId);
    return d?.tenantId === tenantId ? d : undefined;
  }

  /** Is the phone logged in now (live state; the directory holds only the provisioned default)? */
  isRegistered(deviceId: string): boolean {
    return this.core.presence.isRegistered(deviceId);
  }

  /** Grows with every change of any phone's registration (what `isRegistered` answers). */
  registrationGeneration(): number {
    return this.core.presence.registrationGeneration;
  }

  /**
   * Grows with every change of live state (calls, presence, park locations, registrations): a
   * read that shows only such state and the directory may be kept while it stays the same.
   */
  stateGeneration(): number {
    return this.core.stateChanges + this.core.presence.registrationGeneration;
  }

  registerDevice(deviceId: string): void {
    const d = findDevice(this.core, deviceId);
    this.run(d.tenantId, () => phones.register(this.core, d));
  }

  unregisterDevice(deviceId: string): void {
    const d = findDevice(this.core, deviceId);
    this.run(d.tenantId, () => phones.unregister(this.core, d));
  }

  // ---- simulator: the public network ---------------------------------------------------------

  pstnCall(p: { from: string; to: string; callerName?: string }): { pstnCallId: string } {
    const did = typeof p?.to === 'string' ? this.core.dir.didByNumber(p.to) : undefined;
    const tenantId = did?.tenantId ?? 0;
    return this.core.queue.run(tenantId, () => ({ pstnCallId: outside.inboundCall(this.core, p).id }));
  }

  pstnAnswer(id: string): void {
    const leg = outside.pstnLeg(this.core, id);
    this.run(leg.tenantId, () => outside.pstnAnswer(this.core, outside.pstnLeg(this.core, id)));
  }

  pstnHangup(id: string): void {
    const leg = outside.pstnLeg(this.core, id);
    this.run(leg.tenantId, () => outside.pstnHangup(this.core, outside.pstnLeg(this.core, id)));
  }

  pstnDigits(id: string, digits: string): void {
    const leg = outside.pstnLeg(this.core, id);
    this.run(leg.tenantId, () => outside.pstnDigits(this.core, outside.pstnLeg(this.core, id), digits));
  }

  pstnCalls(): PstnCallView[] {
    return [...this.core.reg.pstn.values()].map(outside.pstnView);
  }

  /** How an outside number behaves when called; returns what was stored, under the canonical number. */
  setPstnNumber(number: string, b: PstnBehaviour): PstnBehaviour & { number: string } {
    return outside.setBehaviour(this.core, number, b);
  }

  snapshot(): SimState {
    return snapshot(this.core);
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  /** Ends every call without events, clears timers and all live state. */
  reset(): void {
    const core = this.core;
    core.epoch++;
    core.stateChanges++;
    for (const leg of core.reg.legs.values()) core.clearLegTimer(leg);
    core.reg.clear();
    core.queue.clear();
    core.pstnNumbers.clear();
    core.messages.clear();
    core.presence.clear();
    core.presence.rebuild(() => 0);
  }

  /** After the directory was replaced: registration and presence from the directory, no events. */
  resync(): void {
    const reg = this.core.reg;
    this.core.stateChanges++;
    this.core.presence.rebuild((account) => {
      let n = 0;
      for (const l of reg.legsOf(account)) if (l.kind === 'user') n++;
      return n;
    });
  }

  // ---- internals ------------------------------------------------------------------------------

  /** Runs a command on the tenant's queue. */
  private run(tenantId: number, fn: () => void): void {
    this.core.queue.run(tenantId, fn);
  }

  /** Runs a command on the tenant's queue; the leg it returns leaves as its view. */
  private runLeg(tenantId: number, fn: () => Leg): LegView {
    return this.core.queue.run(tenantId, () => view(fn(), this.core.now()));
  }

  private views(legs: Iterable<Leg>): LegView[] {
    const now = this.core.now();
    const out: LegView[] = [];
    for (const l of legs) out.push(view(l, now));
    return out;
  }

  private tenantOfCall(smdrCallId: string): number {
    const call = this.core.reg.calls.get(smdrCallId);
    if (!call) throw notFound('CALL_NOT_FOUND', `No live call ${smdrCallId}`);
    return call.tenantId;
  }

  private directoryChanged(c: DirectoryChange): void {
    if (c.op === 'reset') return;
    const before = c.op === 'remove' ? c.before : c.before;
    const after = c.op === 'put' ? c.after : undefined;
    const tenantId = (after?.tenantId ?? before?.tenantId) as number | undefined;
    if (tenantId === undefined) return;
    if (c.kind === 'extension') {
      this.core.guarded(tenantId, () =>
        this.core.presence.extensionChanged(before as Extension | undefined, after as Extension | undefined),
      );
    } else if (c.kind === 'device') {
      this.core.guarded(tenantId, () =>
        this.core.presence.deviceChanged(before as Device | undefined, after as Device | undefined),
      );
    }
  }
}
