/**
 * The voice API's call requests on a leg (`POST /api/v1/calls/{callObserverId}`), with the
 * preconditions of the spec and its BST rules.
 */
import { conflict, invalid, notFound } from '../core/errors.js';
import type { Device, Extension } from '../directory/model.js';
import type { Core } from './core.js';
import { hold, resume, transfer } from './features.js';
import { endLeg } from './lifecycle.js';
import type { Leg } from './model.js';
import { checkBst, defaultDevice, ownDevice } from './origination.js';
import { parkCall } from './park.js';
import { answerOffer, declineOffer } from './routing.js';
import type { CallRequestCommand } from './types.js';

/** Runs the request; hangupCall answers with the (ended) leg, the others with nothing. */
export function callRequest(core: Core, cmd: CallRequestCommand): Leg | undefined {
  const leg = liveLeg(core, cmd.tenantId, cmd.callObserverId);
  if (cmd.myExt !== undefined && leg.ext !== cmd.myExt) {
    throw invalid('MY_PARTY_MISMATCH', `Call ${leg.id} is not a call of ${cmd.myExt}`);
  }
  if (cmd.request === 'hangupCall') {
    if (leg.kind === 'point') throw conflict('CALL_NOT_CONTROLLABLE', 'A routing point cannot hang up');
    checkBstLeg(core, leg);
    if (leg.offerFrom) declineOffer(core, leg, 'rejected');
    else endLeg(core, leg, leg.party.id, 'normal');
    return leg;
  }
  if (leg.kind !== 'user') throw conflict('CALL_NOT_CONTROLLABLE', 'Only an extension can control its call');
  switch (cmd.request) {
    case 'answerCall':
      answerByApi(core, leg, cmd.deviceId);
      return undefined;
    case 'deflectCall':
      if (!leg.offerFrom) throw conflict('CALL_NOT_RINGING', 'Only a ringing call can be deflected');
      checkBstLeg(core, leg);
      declineOffer(core, leg, 'deflected');
      return undefined;
    case 'holdCall':
      refuseBst(core, leg, 'holdCall');
      hold(core, leg);
      return undefined;
    case 'resumeHeldCall':
      refuseBst(core, leg, 'resumeHeldCall');
      resume(core, leg);
      return undefined;
    case 'transfer': {
      if (!cmd.otherCallId) throw invalid('OTHER_CALL_REQUIRED', 'transfer needs otherCallId');
      const other = core.reg.legs.get(cmd.otherCallId);
      if (!other || other.tenantId !== cmd.tenantId) {
        throw notFound('OTHER_CALL_NOT_FOUND', `No live call ${cmd.otherCallId}`);
      }
      if (other.ext !== leg.ext || other.kind !== 'user') {
        throw conflict('TRANSFER_NEEDS_TWO_CALLS', 'otherCallId must be another call of the same extension');
      }
      checkBstLeg(core, leg);
      transfer(core, leg, other);
      return undefined;
    }
    case 'parkCall':
      checkBstLeg(core, leg);
      parkCall(core, leg, cmd.parkLocation);
      return undefined;
    default:
      throw invalid('INVALID_CALL_REQUEST', `Unknown call request ${String(cmd.request)}`);
  }
}

export function liveLeg(core: Core, tenantId: number, id: string): Leg {
  const leg = core.reg.legs.get(id);
  if (!leg || leg.tenantId !== tenantId) throw notFound('CALL_NOT_FOUND', `No live call ${id}`);
  return leg;
}

/** The phone a leg is on (or rings on). */
function legDevice(core: Core, leg: Leg): Device | undefined {
  const id = leg.deviceId ?? leg.ringingDeviceId;
  return id ? core.dir.device(id) : undefined;
}

function checkBstLeg(core: Core, leg: Leg): void {
  const d = legDevice(core, leg);
  if (d) checkBst(core, d, false);
}

function refuseBst(core: Core, leg: Leg, request: string): void {
  if (legDevice(core, leg)?.model === 'bst') {
    throw conflict('BST_NOT_SUPPORTED', `${request} is not supported on a basic SIP terminal`);
  }
}

function answerByApi(core: Core, leg: Leg, deviceId: string | undefined): void {
  if (leg.origin) {
    refuseBst(core, leg, 'answerCall');
    throw conflict('CALL_NOT_RINGING', 'The call rings on an external device');
  }
  if (!leg.offerFrom || (leg.state !== 'ringing' && leg.state !== 'offered')) {
    throw conflict('CALL_NOT_RINGING', 'Only a ringing call can be answered');
  }
  const e = core.dir.extension(leg.tenantId, leg.ext ?? '') as Extension;
  const ringing = legDevice(core, leg);
  const d = deviceId
    ? ownDevice(core, e, deviceId)
    : ringing && core.presence.isRegistered(ringing.id)
      ? ringing
      : defaultDevice(core, e);
  if (d.model === 'bst')
    throw conflict('BST_NOT_SUPPORTED', 'answerCall is not supported on a basic SIP terminal');
  answerOffer(core, leg, d.id);
}
