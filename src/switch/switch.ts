/**
 * The switch: the live telephony engine behind both APIs and the simulator. Every command runs
 * on its tenant's serialized queue (tenant-queue.ts) and leaves as typed domain events.
 * See docs/switch.md.
 */
import { accountId } from '../core/accounts.js';
import { conflict, invalid, notFound } from '../core/errors.js';
import type { DirectoryChange } from '../directory/directory.js';
import type { Device, Extension } from '../directory/model.js';
import * as acd from './acd.js';
import type { AcdPort } from './acd-port.js';
import { attendantDigits } from './attendant.js';
import { Core, type SwitchDeps } from './core.js';
import { hold, resume, transfer } from './features.js';
import { endLeg, SYSTEM } from './lifecycle.js';
import { type Leg, view } from './model.js';
import * as origination from './origination.js';
import * as outside from './outside.js';
import { parkCall } from './park.js';
import { answerOffer, declineOffer } from './routing.js';
import { parkStatus, snapshot } from './snapshot.js';
import type {
  CallRequestCommand,
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

/** Phone messages kept per device for the simulator's snapshot. */
export const MESSAGES_PER_DEVICE = 20;

export class Switch {
  private readonly core: Core;

  constructor(readonly deps: SwitchDeps) {
    this.core = new Core(deps);
    this.core.presence.rebuild(() => 0);
    deps.directory.onChange((c) => this.directoryChanged(c));
  }

  setAcdPort(port: AcdPort): void {
    this.core.acd = port;
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
      const leg = this.liveLeg(cmd.tenantId, cmd.callObserverId);
      if (cmd.myExt !== undefined && leg.ext !== cmd.myExt) {
        throw invalid('MY_PARTY_MISMATCH', `Call ${leg.id} is not a call of ${cmd.myExt}`);
      }
      if (cmd.request === 'hangupCall') {
        if (leg.kind === 'point') throw conflict('CALL_NOT_CONTROLLABLE', 'A routing point cannot hang up');
        this.checkBstLeg(leg, false);
        if (leg.offerFrom) declineOffer(this.core, leg, 'rejected');
        else endLeg(this.core, leg, leg.party.id, 'normal');
        return view(leg, this.core.now());
      }
      if (leg.kind !== 'user')
        throw conflict('CALL_NOT_CONTROLLABLE', 'Only an extension can control its call');
      switch (cmd.request) {
        case 'answerCall':
          this.answerByApi(leg, cmd.deviceId);
          break;
        case 'deflectCall':
          if (!leg.offerFrom) throw conflict('CALL_NOT_RINGING', 'Only a ringing call can be deflected');
          this.checkBstLeg(leg, false);
          declineOffer(this.core, leg, 'deflected');
          break;
        case 'holdCall':
          this.refuseBst(leg, 'holdCall');
          hold(this.core, leg);
          break;
        case 'resumeHeldCall':
          this.refuseBst(leg, 'resumeHeldCall');
          resume(this.core, leg);
          break;
        case 'transfer': {
          if (!cmd.otherCallId) throw invalid('OTHER_CALL_REQUIRED', 'transfer needs otherCallId');
          const other = this.core.reg.legs.get(cmd.otherCallId);
          if (!other || other.tenantId !== cmd.tenantId) {
            throw notFound('OTHER_CALL_NOT_FOUND', `No live call ${cmd.otherCallId}`);
          }
          if (other.ext !== leg.ext || other.kind !== 'user') {
            throw conflict(
              'TRANSFER_NEEDS_TWO_CALLS',
              'otherCallId must be another call of the same extension',
            );
          }
          this.checkBstLeg(leg, false);
          transfer(this.core, leg, other);
          break;
        }
        case 'parkCall':
          this.checkBstLeg(leg, false);
          parkCall(this.core, leg, cmd.parkLocation);
          break;
        default:
          throw invalid('INVALID_CALL_REQUEST', `Unknown call request ${String(cmd.request)}`);
      }
      return undefined;
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

  // ---- ACD port commands (the contact center) ---------------------------------------------

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

  // ---- simulator: phones ------------------------------------------------------------------

  deviceAnswer(deviceId: string, callObserverId?: string): LegView {
    const d = this.device(deviceId);
    return this.runLeg(d.tenantId, () => {
      this.requireRegistered(d);
      const leg = this.deviceLeg(d, callObserverId, (l) => l.state === 'ringing' && this.ringsOn(l, d));
      if (leg?.state !== 'ringing' || !this.ringsOn(leg, d)) {
        throw conflict('CALL_NOT_RINGING', `No call is ringing on ${deviceId}`);
      }
      if (leg.origin) origination.originAnswered(this.core, leg);
      else answerOffer(this.core, leg, d.id);
      return leg;
    });
  }

  deviceHangup(deviceId: string, callObserverId?: string): void {
    const d = this.device(deviceId);
    this.run(d.tenantId, () => {
      const leg =
        this.deviceLeg(d, callObserverId, (l) => l.deviceId === d.id && !l.origin) ??
        this.deviceLeg(d, callObserverId, (l) => this.ringsOn(l, d));
      if (!leg || (leg.deviceId !== d.id && !this.ringsOn(leg, d))) {
        throw conflict('NO_ACTIVE_CALL', `No call on ${deviceId}`);
      }
      if (leg.offerFrom) declineOffer(this.core, leg, 'rejected');
      else endLeg(this.core, leg, leg.party.id, 'normal');
    });
  }

  deviceDial(deviceId: string, to: string): LegView {
    const d = this.device(deviceId);
    return this.runLeg(d.tenantId, () => {
      this.requireRegistered(d);
      return origination.deviceDial(this.core, d, to);
    });
  }

  /** DTMF from a phone (to an auto attendant menu it is connected to). */
  deviceDigits(deviceId: string, digits: string): void {
    const d = this.device(deviceId);
    this.run(d.tenantId, () => {
      if (typeof digits !== 'string' || !/^[0-9*#]{1,32}$/.test(digits)) {
        throw invalid('INVALID_DIGITS', 'digits must be 1 to 32 of 0-9, * and #');
      }
      const leg = this.deviceLeg(d, undefined, (l) => l.deviceId === d.id && l.state === 'connected');
      if (!leg) throw conflict('NO_ACTIVE_CALL', `No connected call on ${deviceId}`);
      attendantDigits(this.core, leg, digits);
    });
  }

  registerDevice(deviceId: string): void {
    const d = this.device(deviceId);
    this.run(d.tenantId, () => {
      if (this.core.presence.setRegistered(d, true)) this.deviceEvent(d, true);
    });
  }

  unregisterDevice(deviceId: string): void {
    const d = this.device(deviceId);
    this.run(d.tenantId, () => {
      if (!this.core.presence.setRegistered(d, false)) return;
      this.deviceEvent(d, false);
      const stillRegistered = this.core.presence.registeredDevices(d.tenantId, d.ownerExt);
      for (const leg of origination.legsOnDevice(this.core, d)) {
        if (leg.state === 'ended') continue;
        if (leg.offerFrom && leg.deviceId === undefined) {
          if (stillRegistered.length > 0) leg.ringingDeviceId = stillRegistered[0].id;
          else declineOffer(this.core, leg, 'unavailable');
        } else {
          endLeg(this.core, leg, leg.party.id, 'unregistered');
        }
      }
    });
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

  private liveLeg(tenantId: number, id: string): Leg {
    const leg = this.core.reg.legs.get(id);
    if (!leg || leg.tenantId !== tenantId) throw notFound('CALL_NOT_FOUND', `No live call ${id}`);
    return leg;
  }

  private tenantOfCall(smdrCallId: string): number {
    const call = this.core.reg.calls.get(smdrCallId);
    if (!call) throw notFound('CALL_NOT_FOUND', `No live call ${smdrCallId}`);
    return call.tenantId;
  }

  private device(deviceId: string): Device {
    const d = typeof deviceId === 'string' ? this.core.dir.device(deviceId) : undefined;
    if (!d) throw notFound('DEVICE_NOT_FOUND', `No device ${deviceId}`);
    return d;
  }

  private requireRegistered(d: Device): void {
    if (!this.core.presence.isRegistered(d.id))
      throw conflict('DEVICE_NOT_REGISTERED', `Device ${d.id} is not registered`);
  }

  private ringsOn(leg: Leg, d: Device): boolean {
    if (leg.origin) return leg.deviceId === d.id;
    return leg.offerFrom !== undefined && leg.state === 'ringing' && this.core.presence.isRegistered(d.id);
  }

  /** The named leg of the phone's owner, or the first one matching. */
  private deviceLeg(
    d: Device,
    callObserverId: string | undefined,
    match: (l: Leg) => boolean,
  ): Leg | undefined {
    const legs = this.core.reg.legsOf(accountId(d.ownerExt, d.tenantId));
    if (callObserverId !== undefined) {
      const leg = this.core.reg.legs.get(callObserverId);
      if (!leg || !legs.has(leg)) throw notFound('CALL_NOT_FOUND', `No call ${callObserverId} on ${d.id}`);
      return leg;
    }
    for (const l of legs) if (match(l)) return l;
    return undefined;
  }

  private deviceEvent(d: Device, registered: boolean): void {
    this.core.emit({ type: 'device', tenantId: d.tenantId, deviceId: d.id, registered, at: this.core.now() });
  }

  /** The phone a leg is on (or rings on). */
  private legDevice(leg: Leg, deviceId?: string): Device | undefined {
    const id = deviceId ?? leg.deviceId ?? leg.ringingDeviceId;
    return id ? this.core.dir.device(id) : undefined;
  }

  private checkBstLeg(leg: Leg, needsFreeLine: boolean): void {
    const d = this.legDevice(leg);
    if (d) origination.checkBst(this.core, d, needsFreeLine);
  }

  private refuseBst(leg: Leg, request: string): void {
    if (this.legDevice(leg)?.model === 'bst') {
      throw conflict('BST_NOT_SUPPORTED', `${request} is not supported on a basic SIP terminal`);
    }
  }

  private answerByApi(leg: Leg, deviceId: string | undefined): void {
    if (leg.origin) {
      this.refuseBst(leg, 'answerCall');
      throw conflict('CALL_NOT_RINGING', 'The call rings on an external device');
    }
    if (!leg.offerFrom || (leg.state !== 'ringing' && leg.state !== 'offered')) {
      throw conflict('CALL_NOT_RINGING', 'Only a ringing call can be answered');
    }
    const e = this.core.dir.extension(leg.tenantId, leg.ext ?? '') as Extension;
    const d = deviceId
      ? origination.ownDevice(this.core, e, deviceId)
      : this.legDevice(leg) && this.core.presence.isRegistered(leg.ringingDeviceId ?? '')
        ? this.legDevice(leg)!
        : origination.defaultDevice(this.core, e);
    if (d.model === 'bst')
      throw conflict('BST_NOT_SUPPORTED', 'answerCall is not supported on a basic SIP terminal');
    answerOffer(this.core, leg, d.id);
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
