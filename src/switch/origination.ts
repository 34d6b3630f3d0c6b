/**
 * Calls that start at an extension: click to call (`makeCall`, docs/decisions.md §1.4), a phone dialing,
 * and retrieving a parked call. Click to call first takes the caller's device off-hook:
 * phoneModelA/B answer by themselves, a BST rings until answered, an external device (or the
 * twinning number) is called through the PSTN and, with `playPrompt`, must press a key.
 */
import { conflict, forbidden, invalid, notFound } from '../core/errors.js';
import type { Device, Extension } from '../directory/model.js';
import type { Core } from './core.js';
import { isDialable, outsideNumber, resolveDialed } from './dial-plan.js';
import { callEvent, label, markSip, segment } from './events.js';
import { endLeg, fail, newCall, newLeg, SYSTEM } from './lifecycle.js';
import type { Leg, Origin, Party } from './model.js';
import { behaviour } from './outside.js';
import { completeRetrieve, parkedAt } from './park.js';
import { hasPresence } from './presence.js';
import { DEFAULT_RING_TIMEOUT_MS, destinationId, dialFrom } from './routing.js';
import type { MakeCallCommand, RetrieveParkedCommand } from './types.js';

export type OriginDevice = { kind: 'device'; device: Device } | { kind: 'external'; number: string };

export function userExtension(core: Core, tenantId: number, ext: string): Extension {
  if (!core.dir.tenant(tenantId)) throw notFound('TENANT_NOT_FOUND', `No tenant ${tenantId}`);
  const e = core.dir.extension(tenantId, ext);
  if (!hasPresence(e)) throw notFound('EXTENSION_NOT_FOUND', `No user or location extension ${ext}`);
  if (!e.enabled) throw conflict('EXTENSION_DISABLED', `Extension ${ext} is disabled`);
  return e;
}

/** Live legs on a phone, ringing ones included (its busy line appearances). */
export function legsOnDevice(core: Core, device: Device): Leg[] {
  const out: Leg[] = [];
  for (const l of core.reg.legsOf(`${device.ownerExt}@${device.tenantId}`)) {
    if (l.deviceId === device.id || l.ringingDeviceId === device.id) out.push(l);
  }
  return out;
}

/** The BST rule of the spec: two lines, re-INVITE both ways, and (to start a call) a free line. */
export function checkBst(core: Core, device: Device, needsFreeLine: boolean): void {
  if (device.model !== 'bst') return;
  if (device.lineCount < 2 || !device.acceptsReinvite || !device.sendsReinvite) {
    throw conflict(
      'BST_NOT_SUPPORTED',
      `Basic SIP terminal ${device.id} needs two lines and re-INVITE support for call control`,
    );
  }
  if (needsFreeLine && legsOnDevice(core, device).length >= device.lineCount) {
    throw conflict('BST_NO_FREE_LINE', `Basic SIP terminal ${device.id} has no free line appearance`);
  }
}

/** One of the user's registered phones, checked. */
export function ownDevice(core: Core, e: Extension, deviceId: string): Device {
  const d = core.dir.device(deviceId);
  if (!d) throw notFound('DEVICE_NOT_FOUND', `No device ${deviceId}`);
  if (d.tenantId !== e.tenantId || d.ownerExt !== e.ext) {
    throw forbidden('DEVICE_NOT_OWNED', `Device ${deviceId} is not a phone of ${e.ext}`);
  }
  if (!core.presence.isRegistered(d.id))
    throw conflict('DEVICE_NOT_REGISTERED', `Device ${deviceId} is not registered`);
  return d;
}

/** The user's default click-to-call phone, or the first registered one. */
export function defaultDevice(core: Core, e: Extension): Device {
  const devices = core.presence.registeredDevices(e.tenantId, e.ext);
  const d = devices.find((x) => x.id === e.clickToCallDeviceId) ?? devices[0];
  if (!d) throw conflict('NO_REGISTERED_DEVICE', `Extension ${e.ext} has no registered phone`);
  return d;
}

export function originDevice(
  core: Core,
  e: Extension,
  deviceId: string | undefined,
  deviceIdType: 'device' | 'external' | undefined,
  allowExternal: boolean,
): OriginDevice {
  if (deviceId === 'twinningDevice') {
    if (!allowExternal) throw invalid('DEVICE_NOT_SUPPORTED', 'Only a phone can retrieve a parked call');
    if (!e.twinningNumber) throw conflict('NO_TWINNING_NUMBER', `Extension ${e.ext} has no twinning number`);
    return { kind: 'external', number: outsideNumber(e.twinningNumber) };
  }
  if (deviceIdType === 'external') {
    if (!allowExternal) throw invalid('DEVICE_NOT_SUPPORTED', 'Only a phone can retrieve a parked call');
    if (!deviceId || !/^\+?[0-9]{3,20}$/.test(deviceId.trim())) {
      throw invalid('INVALID_DEVICE_ID', 'An external device is a phone number');
    }
    return { kind: 'external', number: outsideNumber(deviceId) };
  }
  const device = deviceId ? ownDevice(core, e, deviceId) : defaultDevice(core, e);
  checkBst(core, device, true);
  return { kind: 'device', device };
}

export function makeCall(
  core: Core,
  cmd: MakeCallCommand & { callerId?: { number: string; name: string } },
): Leg {
  const e = userExtension(core, cmd.tenantId, cmd.fromExt);
  const to = typeof cmd.to === 'string' ? cmd.to.trim() : '';
  if (!isDialable(to)) throw invalid('INVALID_NUMBER', 'to must be digits, optionally with a leading +');
  const dev = originDevice(core, e, cmd.deviceId, cmd.deviceIdType, true);
  const lenient = cmd.callerId !== undefined;
  const leg = startCall(core, e, to, lenient, cmd.callerId);
  const prompt = dev.kind === 'external' && (cmd.playPrompt ?? e.confirmBeforeDial);
  startOrigin(core, leg, e, dev, { kind: 'dial', to, lenient, prompt });
  return leg;
}

export function retrieveParked(core: Core, cmd: RetrieveParkedCommand): Leg {
  const e = userExtension(core, cmd.tenantId, cmd.fromExt);
  const parked = parkedAt(core, cmd.tenantId, cmd.parkLocation);
  const dev = originDevice(core, e, cmd.deviceId, 'device', false);
  const party = core.extensionParty(e);
  const where = `PL${cmd.parkLocation}`;
  const leg = newLeg(core, parked.call, {
    kind: 'user',
    party,
    ext: e.ext,
    state: 'dialing',
    direction: 'outgoing',
    from: e.ext,
    to: where,
    digitsDialed: where,
    far: parked.party,
  });
  startOrigin(core, leg, e, dev, { kind: 'retrieve', parkLocation: cmd.parkLocation });
  return leg;
}

/** The user dials on the phone itself (already off-hook). */
export function deviceDial(core: Core, device: Device, to: string): Leg {
  const e = userExtension(core, device.tenantId, device.ownerExt);
  if (typeof to !== 'string' || !isDialable(to.trim()))
    throw invalid('INVALID_NUMBER', 'to must be dialable digits');
  if (legsOnDevice(core, device).length >= device.lineCount) {
    throw conflict('NO_FREE_LINE', `Device ${device.id} has no free line`);
  }
  const dialed = to.trim();
  const leg = startCall(core, e, dialed, false);
  leg.deviceId = device.id;
  if (device.model === 'bst') markSip(leg.call);
  callEvent(core, leg, 'dial', { from: leg.from, to: dialed, dialingDeviceId: device.id });
  dialFrom(core, leg, dialed, false);
  return leg;
}

/** A new call from an extension: the caller's leg, dialing `to`. */
function startCall(
  core: Core,
  e: Extension,
  to: string,
  lenient: boolean,
  callerId?: { number: string; name: string },
): Leg {
  const party = core.extensionParty(e);
  const presented = callerId ?? { number: e.ext, name: e.name };
  const dest = resolveDialed(core.dir, e.tenantId, to, lenient);
  const toParty: Party =
    dest.kind === 'extension'
      ? core.extensionParty(dest.ext)
      : // An unknown number is still known by what was dialed (spec: external parties by number).
        {
          id: dest.kind === 'unknown' ? to : destinationId(core, dest),
          number: dest.kind === 'outside' ? dest.number : to,
          name: '',
        };
  const call = newCall(core, e.tenantId, { ...party, ...presented }, toParty, 'internal');
  const leg = newLeg(core, call, {
    kind: 'user',
    party,
    presented,
    ext: e.ext,
    state: 'dialing',
    direction: 'outgoing',
    from: presented.number,
    to,
    digitsDialed: to,
    far: toParty,
  });
  segment(core, call, 'outbound', `Call from ${label(party)} to ${to}`, party);
  return leg;
}

function startOrigin(core: Core, leg: Leg, e: Extension, dev: OriginDevice, origin: Origin): void {
  leg.origin = origin;
  if (dev.kind === 'device') {
    leg.deviceId = dev.device.id;
    if (dev.device.model === 'bst') markSip(leg.call);
    callEvent(core, leg, 'dial', { from: leg.from, to: leg.to, dialingDeviceId: dev.device.id });
    if (dev.device.model !== 'bst') {
      originProceed(core, leg);
      return;
    }
    leg.state = 'ringing';
    callEvent(core, leg, 'ringing', { ringingDeviceId: dev.device.id });
    core.legTimer(leg, e.ringTimeoutMs || DEFAULT_RING_TIMEOUT_MS, () =>
      endLeg(core, leg, SYSTEM, 'noAnswer'),
    );
    return;
  }
  leg.deviceId = dev.number;
  leg.pstn = { number: dev.number, direction: 'outbound', answered: false };
  core.reg.pstn.set(leg.id, leg);
  callEvent(core, leg, 'dial', { from: leg.from, to: leg.to, dialingDeviceId: dev.number });
  const b = behaviour(core, dev.number);
  if (b.busy) {
    fail(core, leg, 'Busy', 'Busy', 'busy');
    return;
  }
  leg.state = 'ringing';
  callEvent(core, leg, 'ringing', { ringingDeviceId: dev.number });
  if (b.answer === 'auto') core.legTimer(leg, b.answerAfterMs, () => originAnswered(core, leg));
}

/** The caller's own device answered (a BST picked up, the external phone answered). */
export function originAnswered(core: Core, leg: Leg): void {
  core.clearLegTimer(leg);
  if (leg.pstn) leg.pstn.answered = true;
  if (leg.origin?.kind === 'dial' && leg.origin.prompt) {
    // Off-hook, waiting for the prompt: no event says so, but reads of the legs change.
    core.stateChanges++;
    leg.state = 'dialing';
    leg.awaitingPrompt = true;
    return;
  }
  originProceed(core, leg);
}

/** The caller is off-hook: dial the target or take the parked call. */
export function originProceed(core: Core, leg: Leg): void {
  const origin = leg.origin;
  leg.origin = undefined;
  leg.awaitingPrompt = undefined;
  leg.state = 'dialing';
  if (!origin) return;
  if (origin.kind === 'dial') {
    dialFrom(core, leg, origin.to, origin.lenient);
    return;
  }
  completeRetrieve(core, leg, origin.parkLocation);
}
