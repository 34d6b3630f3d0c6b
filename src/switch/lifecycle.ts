/** Birth, connection and end of legs and calls. */
import type { Core } from './core.js';
import { callEvent, label, segment } from './events.js';
import type { Call, Leg, LegKind, Party, Route } from './model.js';
import { talkState } from './model.js';
import { releasePark } from './park.js';
import { buildRecord } from './records.js';
import type { CallState } from './types.js';

/** The `endingParty` of ends the switch itself decides (errors, time-outs, kills). */
export const SYSTEM = 'system';

export function newCall(
  core: Core,
  tenantId: number,
  from: Party,
  to: Party,
  direction: Call['direction'],
): Call {
  const call: Call = {
    smdrCallId: core.nextId(),
    tenantId,
    startedAt: core.now(),
    live: 0,
    legs: [],
    direction,
    from,
    to,
    segments: [],
    queued: false,
    voicemail: false,
  };
  core.reg.addCall(call);
  return call;
}

export interface LegInit {
  kind: LegKind;
  party: Party;
  presented?: { number: string; name: string };
  ext?: string;
  state: CallState;
  direction: Leg['direction'];
  from: string;
  to: string;
  digitsDialed: string;
  far?: Party;
}

export function newLeg(core: Core, call: Call, init: LegInit): Leg {
  const account = init.kind === 'user' || init.kind === 'point' ? (init.party.account ?? null) : null;
  const leg: Leg = {
    id: core.nextId(),
    call,
    kind: init.kind,
    tenantId: call.tenantId,
    account,
    ext: init.ext,
    party: init.party,
    presented: init.presented ?? { number: init.party.number, name: init.party.name },
    state: init.state,
    direction: init.direction,
    from: init.from,
    to: init.to,
    digitsDialed: init.digitsDialed,
    startTime: core.now(),
    redirected: false,
    transferred: false,
    holding: false,
    far: init.far,
    closed: false,
  };
  core.reg.addLeg(leg);
  call.legs.push(leg);
  call.live++;
  if (account && init.kind === 'user') core.presence.callStarted(account);
  return leg;
}

/** Joins two legs in conversation. Answer events are the caller's business. */
export function connect(core: Core, a: Leg, b: Leg): void {
  const now = core.now();
  for (const l of [a, b]) {
    core.clearLegTimer(l);
    l.route = undefined;
    l.offerFrom = undefined;
    l.holding = false;
    l.ringingDeviceId = undefined;
    if (l.queue !== undefined) {
      core.reg.unqueue(l);
      l.queue = undefined;
    }
    if (l.answerTime === undefined) l.answerTime = now;
  }
  a.peer = b;
  b.peer = a;
  a.far = b.party;
  b.far = a.party;
  a.state = talkState(a);
  b.state = talkState(b);
}

/**
 * Ends a leg: its `end` event, presence, the party it talked to, the offers it was making, the
 * park location it held. When the last leg of a call ends, the call ends with its record.
 */
export function endLeg(core: Core, leg: Leg, endingParty: string, reason: string): void {
  if (leg.state === 'ended') return;
  const now = core.now();
  core.clearLegTimer(leg);
  const { peer, route, offerFrom } = leg;
  leg.peer = undefined;
  leg.route = undefined;
  leg.offerFrom = undefined;
  leg.origin = undefined;
  leg.awaitingPrompt = undefined;
  leg.holding = false;
  leg.ringingDeviceId = undefined;
  if (leg.parkLocation !== undefined) releasePark(core, leg);
  leg.queue = undefined;
  leg.state = 'ended';
  leg.endTime = now;
  core.reg.removeLeg(leg);
  callEvent(core, leg, 'end', {
    from: leg.from,
    to: leg.to,
    endingParty,
    endReason: reason,
    callDurationMs: now - leg.startTime,
  });
  if (leg.account && leg.kind === 'user') core.presence.callEnded(leg.account);
  const call = leg.call;
  call.lastEnder = endingParty;
  if (--call.live === 0) finishCall(core, call);
  if (offerFrom) detachOffer(offerFrom, leg);
  if (peer && peer.state !== 'ended') {
    peer.peer = undefined;
    peer.holding = false;
    endLeg(core, peer, endingParty, 'normal');
  }
  if (route) cancelRoute(core, route, endingParty);
}

/** A call that cannot complete: `callError`, then the caller's end. */
export function fail(
  core: Core,
  caller: Leg,
  error: string,
  outcome: Call['outcome'],
  endReason: string,
): void {
  callEvent(core, caller, 'callError', { error });
  caller.call.outcome = outcome;
  segment(core, caller.call, 'error', error);
  endLeg(core, caller, SYSTEM, endReason);
}

function detachOffer(caller: Leg, offered: Leg): void {
  const route = caller.route;
  if (!route) return;
  if (route.kind === 'group') route.offers.delete(offered);
  if (route.kind === 'acd' && route.offers.get(offered.ext ?? '') === offered)
    route.offers.delete(offered.ext ?? '');
}

function cancelRoute(core: Core, route: Route, endingParty: string): void {
  if (route.kind === 'user' || route.kind === 'outside') {
    endLeg(core, route.target, endingParty, 'normal');
    return;
  }
  for (const o of [...route.offers.values()]) endLeg(core, o, endingParty, 'normal');
  endLeg(core, route.point, endingParty, 'normal');
}

function finishCall(core: Core, call: Call): void {
  core.reg.removeCall(call);
  const at = core.now();
  const ender = call.lastEnder;
  const by = ender ? call.legs.find((l) => l.party.id === ender)?.party : undefined;
  const text = call.endReason
    ? `Disconnected (${call.endReason})`
    : by
      ? `Disconnected by ${label(by)}`
      : 'Disconnected';
  segment(core, call, 'disconnected', text);
  core.emit({
    type: 'callEnded',
    tenantId: call.tenantId,
    smdrCallId: call.smdrCallId,
    at,
    record: buildRecord(call),
  });
  if (call.queued)
    core.tell({
      type: 'acd',
      name: 'queueCallEnded',
      tenantId: call.tenantId,
      smdrCallId: call.smdrCallId,
      at,
    });
}
