/**
 * Where a call goes: the dial plan's destination, offers to extensions, answering an offer,
 * declining one, and coverage to voicemail.
 */
import type { Extension } from '../directory/model.js';
import { enqueue } from './acd.js';
import { startAttendant } from './attendant.js';
import type { Core } from './core.js';
import { type Destination, resolveDialed } from './dial-plan.js';
import { callEvent, label, markSip, segment } from './events.js';
import { memberDeclined, startGroup } from './groups.js';
import { connect, endLeg, fail, newLeg } from './lifecycle.js';
import type { Leg } from './model.js';
import { dialOutside } from './outside.js';
import type { CallEventFields } from './types.js';

export const DEFAULT_RING_TIMEOUT_MS = 20_000;
/** Voicemail hangs up after taking a message this long. */
export const VOICEMAIL_MAX_MS = 120_000;

export function dialFrom(core: Core, caller: Leg, dialed: string, lenient: boolean): void {
  deliver(core, caller, resolveDialed(core.dir, caller.tenantId, dialed, lenient));
}

/** Sends the caller's leg to a destination. `via` names the routing point or DID it came through. */
export function deliver(core: Core, caller: Leg, dest: Destination, via?: string): void {
  caller.state = 'dialing';
  if (dest.kind === 'unknown') {
    fail(core, caller, dest.reason ?? 'Unknown number', 'Failed', 'callError');
    return;
  }
  if (dest.kind === 'outside') {
    dialOutside(core, caller, dest.number, dest.emergency);
    return;
  }
  const ext = dest.ext;
  switch (ext.type) {
    case 'userExt':
    case 'locationExt':
      offerDirect(core, caller, ext, via);
      return;
    case 'acdExt':
      enqueue(core, caller, ext, via);
      return;
    case 'groupExt':
      startGroup(core, caller, ext, via);
      return;
    case 'autoAttendantExt':
      startAttendant(core, caller, ext, via);
      return;
  }
}

/** Why an extension cannot take a new call now, if it cannot. */
export function unavailability(core: Core, ext: Extension): 'dnd' | 'unavailable' | 'busy' | undefined {
  if (core.presence.isDnd(ext.tenantId, ext.ext)) return 'dnd';
  const devices = core.presence.registeredDevices(ext.tenantId, ext.ext);
  if (devices.length === 0) return 'unavailable';
  let lines = 0;
  for (const d of devices) lines = Math.max(lines, d.lineCount);
  const account = core.extensionParty(ext).account!;
  if (core.reg.legsOf(account).size >= lines) return 'busy';
  return undefined;
}

function offerDirect(core: Core, caller: Leg, ext: Extension, via?: string): void {
  const party = core.extensionParty(ext);
  if (caller.account === party.account) {
    fail(core, caller, 'Cannot call your own extension', 'Busy', 'busy');
    return;
  }
  const why = unavailability(core, ext);
  const target = offerUser(core, caller, ext, via);
  caller.route = { kind: 'user', target };
  segment(core, caller.call, 'called', `Calling ${label(party)}`, party);
  if (why) {
    cover(core, target, why);
    return;
  }
  ring(core, target);
  core.legTimer(target, ext.ringTimeoutMs || DEFAULT_RING_TIMEOUT_MS, () => cover(core, target, 'noAnswer'));
}

/** Creates the offered leg of an extension, with its `offer` event. */
export function offerUser(core: Core, caller: Leg, ext: Extension, via?: string): Leg {
  const leg = offeredLeg(core, caller, ext, 'user', via);
  leg.offerFrom = caller;
  return leg;
}

/** An extension's leg in the caller's call (a user's offer or a routing point), with `offer`. */
export function offeredLeg(
  core: Core,
  caller: Leg,
  ext: Extension,
  kind: 'user' | 'point',
  via?: string,
): Leg {
  const party = core.extensionParty(ext);
  const leg = newLeg(core, caller.call, {
    kind,
    party,
    ext: ext.ext,
    state: 'offered',
    direction: 'incoming',
    from: caller.presented.number,
    to: caller.to,
    digitsDialed: caller.digitsDialed,
    far: caller.party,
  });
  if (!caller.peer) caller.far = party;
  if (
    kind === 'user' &&
    core.presence.registeredDevices(ext.tenantId, ext.ext).some((d) => d.model === 'bst')
  ) {
    markSip(caller.call);
  }
  const fields: CallEventFields['offer'] = {
    from: caller.presented.number,
    to: caller.to,
    dialedDigits: caller.digitsDialed,
    callingName: caller.presented.name,
  };
  if (via) fields.via = via;
  callEvent(core, leg, 'offer', fields);
  return leg;
}

/** The offered leg rings on the extension's phone; a dialing caller hears ringback. */
export function ring(core: Core, leg: Leg): void {
  const devices = core.presence.registeredDevices(leg.tenantId, leg.ext ?? '');
  if (devices.length === 0) return;
  const preferred = core.dir.extension(leg.tenantId, leg.ext ?? '')?.clickToCallDeviceId;
  const device = devices.find((d) => d.id === preferred) ?? devices[0];
  leg.state = 'ringing';
  leg.ringingDeviceId = device.id;
  callEvent(core, leg, 'ringing', { ringingDeviceId: device.id });
  const caller = leg.offerFrom;
  if (caller) ringback(core, caller);
}

export function ringback(core: Core, caller: Leg): void {
  if (caller.state !== 'dialing') return;
  caller.state = 'ringback';
  callEvent(core, caller, 'ringback', {});
}

/** An offered leg answers (from a phone, the API, or the outside party). */
export function answerOffer(core: Core, leg: Leg, deviceId: string): void {
  const caller = leg.offerFrom;
  if (!caller) return;
  const route = caller.route;
  if (route?.kind === 'group' || route?.kind === 'acd') {
    for (const o of [...route.offers.values()])
      if (o !== leg) endLeg(core, o, leg.party.id, 'answeredElsewhere');
    caller.route = undefined;
    endLeg(core, route.point, leg.party.id, 'answered');
  }
  if (leg.pstn) leg.pstn.answered = true;
  leg.deviceId = deviceId;
  connect(core, caller, leg);
  const fields = { answeringParty: leg.party.id, answeringDeviceId: deviceId };
  callEvent(core, leg, 'answer', fields);
  callEvent(core, caller, 'answer', fields);
  if (leg.kind === 'user' || leg.kind === 'pstn') leg.call.answeredAt ??= core.now();
  segment(core, leg.call, 'answered', `Answered by ${label(leg.party)}`, leg.party);
  if (route?.kind === 'acd') {
    const at = core.now();
    const smdrCallId = leg.call.smdrCallId;
    const agentExt = leg.ext ?? '';
    core.tell({ type: 'acd', name: 'offerAnswered', tenantId: leg.tenantId, smdrCallId, agentExt, at });
  }
}

/**
 * An offered leg refuses the call (deflect, reject, its phone went away). A direct call goes to
 * coverage; a group tries its next member; a queue call waits again.
 */
export function declineOffer(core: Core, leg: Leg, reason: 'deflected' | 'rejected' | 'unavailable'): void {
  const caller = leg.offerFrom;
  const route = caller?.route;
  if (!caller || !route) {
    endLeg(core, leg, leg.party.id, reason);
    return;
  }
  switch (route.kind) {
    case 'user':
      cover(core, leg, reason);
      return;
    case 'group':
      endLeg(core, leg, leg.party.id, reason);
      memberDeclined(core, caller, route);
      return;
    case 'acd': {
      endLeg(core, leg, leg.party.id, reason);
      const at = core.now();
      const smdrCallId = leg.call.smdrCallId;
      const agentExt = leg.ext ?? '';
      core.tell({
        type: 'acd',
        name: 'offerFailed',
        tenantId: leg.tenantId,
        smdrCallId,
        agentExt,
        reason,
        at,
      });
      return;
    }
    case 'outside':
      caller.route = undefined;
      endLeg(core, leg, leg.party.id, reason);
      endLeg(core, caller, leg.party.id, reason);
      return;
  }
}

const WHY: Record<string, string> = {
  noAnswer: 'no answer',
  deflected: 'deflected',
  rejected: 'rejected',
  dnd: 'do not disturb',
  unavailable: 'no registered phone',
  busy: 'busy',
};

/** Coverage: the offered extension forwards the call to its voicemail. */
export function cover(core: Core, target: Leg, why: string): void {
  const caller = target.offerFrom;
  if (!caller) return;
  const vm = core.voicemailParty(target.tenantId);
  caller.route = undefined;
  target.offerFrom = undefined;
  const fields = { forwardingParty: target.party.id, forwardTarget: vm.id };
  callEvent(core, target, 'forward', fields);
  callEvent(core, caller, 'forward', fields);
  segment(
    core,
    caller.call,
    'forwarded',
    `Forwarded from ${label(target.party)} to Voicemail (${WHY[why] ?? why})`,
    target.party,
  );
  endLeg(core, target, target.party.id, 'forwarded');
  caller.redirected = true;
  connectVoicemail(core, caller);
}

function connectVoicemail(core: Core, caller: Leg): void {
  const party = core.voicemailParty(caller.tenantId);
  const vm = newLeg(core, caller.call, {
    kind: 'voicemail',
    party,
    state: 'connected',
    direction: 'incoming',
    from: caller.presented.number,
    to: caller.to,
    digitsDialed: caller.digitsDialed,
    far: caller.party,
  });
  vm.deviceId = 'voicemail';
  connect(core, caller, vm);
  caller.call.voicemail = true;
  callEvent(core, caller, 'answer', { answeringParty: party.id, answeringDeviceId: 'voicemail' });
  segment(core, caller.call, 'voicemail', 'Answered by Voicemail', party);
  core.legTimer(vm, VOICEMAIL_MAX_MS, () => endLeg(core, vm, party.id, 'normal'));
}

/** The forward of a routing point (auto attendant, queue) to its next destination. */
export function forwardFromPoint(core: Core, caller: Leg, point: Leg, forwardTarget: string): void {
  const fields = { forwardingParty: point.party.id, forwardTarget };
  callEvent(core, point, 'forward', fields);
  callEvent(core, caller, 'forward', fields);
  if (caller.peer === point) {
    caller.peer = undefined;
    point.peer = undefined;
  }
  caller.route = undefined;
  endLeg(core, point, point.party.id, 'forwarded');
  caller.redirected = true;
}

/** The account id (extension) or number a destination is known by. */
export function destinationId(core: Core, dest: Destination): string {
  if (dest.kind === 'extension') return core.extensionParty(dest.ext).id;
  if (dest.kind === 'outside') return dest.number;
  return 'unknown';
}
