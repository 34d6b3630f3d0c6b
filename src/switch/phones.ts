/** What a phone does by itself (the simulator's devices): answer, hang up, DTMF, log in and out. */
import { accountId } from '../core/accounts.js';
import { conflict, invalid, notFound } from '../core/errors.js';
import type { Device } from '../directory/model.js';
import { attendantDigits } from './attendant.js';
import type { Core } from './core.js';
import { endLeg } from './lifecycle.js';
import type { Leg } from './model.js';
import { legsOnDevice, originAnswered } from './origination.js';
import { answerOffer, declineOffer } from './routing.js';

export function findDevice(core: Core, deviceId: string): Device {
  const d = typeof deviceId === 'string' ? core.dir.device(deviceId) : undefined;
  if (!d) throw notFound('DEVICE_NOT_FOUND', `No device ${deviceId}`);
  return d;
}

export function requireRegistered(core: Core, d: Device): void {
  if (!core.presence.isRegistered(d.id))
    throw conflict('DEVICE_NOT_REGISTERED', `Device ${d.id} is not registered`);
}

/** The phone answers the call ringing on it (or the one named). */
export function phoneAnswer(core: Core, d: Device, callObserverId?: string): Leg {
  requireRegistered(core, d);
  const leg = ownerLeg(core, d, callObserverId, (l) => l.state === 'ringing' && ringsOn(core, l, d));
  if (leg?.state !== 'ringing' || !ringsOn(core, leg, d)) {
    throw conflict('CALL_NOT_RINGING', `No call is ringing on ${d.id}`);
  }
  if (leg.origin) originAnswered(core, leg);
  else answerOffer(core, leg, d.id);
  return leg;
}

/** The phone hangs up its call; hanging up a ringing call declines it. */
export function phoneHangup(core: Core, d: Device, callObserverId?: string): void {
  const leg =
    ownerLeg(core, d, callObserverId, (l) => l.deviceId === d.id && !l.origin) ??
    ownerLeg(core, d, callObserverId, (l) => ringsOn(core, l, d));
  if (!leg || (leg.deviceId !== d.id && !ringsOn(core, leg, d))) {
    throw conflict('NO_ACTIVE_CALL', `No call on ${d.id}`);
  }
  if (leg.offerFrom) declineOffer(core, leg, 'rejected');
  else endLeg(core, leg, leg.party.id, 'normal');
}

/** DTMF from the phone, to the auto attendant menu its call listens to. */
export function phoneDigits(core: Core, d: Device, digits: string): void {
  if (typeof digits !== 'string' || !/^[0-9*#]{1,32}$/.test(digits)) {
    throw invalid('INVALID_DIGITS', 'digits must be 1 to 32 of 0-9, * and #');
  }
  const leg = ownerLeg(core, d, undefined, (l) => l.deviceId === d.id && l.state === 'connected');
  if (!leg) throw conflict('NO_ACTIVE_CALL', `No connected call on ${d.id}`);
  attendantDigits(core, leg, digits);
}

export function register(core: Core, d: Device): void {
  if (core.presence.setRegistered(d, true)) deviceEvent(core, d, true);
}

/** The phone logs out: its calls end; a call ringing only there is declined. */
export function unregister(core: Core, d: Device): void {
  if (!core.presence.setRegistered(d, false)) return;
  deviceEvent(core, d, false);
  const stillRegistered = core.presence.registeredDevices(d.tenantId, d.ownerExt);
  for (const leg of legsOnDevice(core, d)) {
    if (leg.state === 'ended') continue;
    if (leg.offerFrom && leg.deviceId === undefined) {
      if (stillRegistered.length > 0) leg.ringingDeviceId = stillRegistered[0].id;
      else declineOffer(core, leg, 'unavailable');
    } else {
      endLeg(core, leg, leg.party.id, 'unregistered');
    }
  }
}

function deviceEvent(core: Core, d: Device, registered: boolean): void {
  core.emit({ type: 'device', tenantId: d.tenantId, deviceId: d.id, registered, at: core.now() });
}

function ringsOn(core: Core, leg: Leg, d: Device): boolean {
  if (leg.origin) return leg.deviceId === d.id;
  return leg.offerFrom !== undefined && leg.state === 'ringing' && core.presence.isRegistered(d.id);
}

/** The named leg of the phone's owner, or the first one matching. */
function ownerLeg(
  core: Core,
  d: Device,
  callObserverId: string | undefined,
  match: (l: Leg) => boolean,
): Leg | undefined {
  const legs = core.reg.legsOf(accountId(d.ownerExt, d.tenantId));
  if (callObserverId !== undefined) {
    const leg = core.reg.legs.get(callObserverId);
    if (!leg || !legs.has(leg)) throw notFound('CALL_NOT_FOUND', `No call ${callObserverId} on ${d.id}`);
    return leg;
  }
  for (const l of legs) if (match(l)) return l;
  return undefined;
}
