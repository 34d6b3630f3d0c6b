/**
 * A live call in durable form, and back. The node that owns a tenant keeps the durable form of
 * each live call in the database (docs/cluster.md, Failover), because a call held only in memory
 * dies with its node without a trace. The node that takes the tenant over recreates the call in
 * its switch from that form, silently (every event up to then was already published), and then:
 * - ends it with a reason ("node lost"): each live leg's `end`, presence, park locations and the
 *   call's record, exactly as any call ends;
 * - or, for an outside caller waiting in an ACD, lets it wait on: the caller's and the queue's
 *   legs come back with their ids and queue time, the offers ringing agents end.
 */
import type { Core } from './core.js';
import { endLeg, SYSTEM } from './lifecycle.js';
import type { Call, Leg } from './model.js';
import { parkKey } from './registry.js';

/**
 * A leg's own fields, its links (peer, offer, a queued caller's route) as leg ids. What only
 * lives while the node does (timers, a click to call's origin, an attendant's menu) is not kept.
 */
export type DurableLeg = Omit<
  Leg,
  | 'call'
  | 'tenantId'
  | 'closed'
  | 'peer'
  | 'offerFrom'
  | 'route'
  | 'origin'
  | 'awaitingPrompt'
  | 'timer'
  | 'attendant'
> & {
  peer?: string;
  offerFrom?: string;
  /** A queued caller's route: its ACD and the queue's own leg. */
  acdRoute?: { acdExt: string; point: string };
};

/** A call's own fields and every leg, ended ones too (the record names every party). */
export type DurableCall = Omit<Call, 'live' | 'legs' | 'lastEnder' | 'endReason'> & { legs: DurableLeg[] };

export function durableCall(call: Call): DurableCall {
  const { live: _live, legs, lastEnder: _ender, endReason: _reason, segments, ...fields } = call;
  // A segment is never changed once added (events.ts `segment`): a copy of the list is a
  // snapshot, without cloning every step of a long call on each of its batches.
  return { ...structuredClone(fields), segments: segments.slice(), legs: legs.map(durableLeg) };
}

function durableLeg(l: Leg): DurableLeg {
  const {
    call: _call,
    tenantId: _tenant,
    closed: _closed,
    peer,
    offerFrom,
    route,
    origin: _origin,
    awaitingPrompt: _prompt,
    timer: _timer,
    attendant: _attendant,
    ...fields
  } = l;
  return {
    ...structuredClone(fields),
    peer: peer?.id,
    offerFrom: offerFrom?.id,
    acdRoute: route?.kind === 'acd' ? { acdExt: route.acdExt, point: route.point.id } : undefined,
  };
}

/** The live legs of a durable call. */
const liveLegs = (d: DurableCall) => d.legs.filter((l) => l.state !== 'ended');

/**
 * The queued outside caller of a call that can go on waiting on another node: an inbound PSTN
 * caller waiting in an ACD extension that still exists, the queue's own leg, and nothing else
 * live but offers to agents (they are lost with the node that rang them).
 */
export function waitingCaller(core: Core, d: DurableCall): DurableLeg | undefined {
  const live = liveLegs(d);
  const caller = live.find((l) => l.state === 'queued');
  const route = caller?.acdRoute;
  if (!caller || !route || caller.kind !== 'pstn' || caller.pstn?.direction !== 'inbound') return undefined;
  if (core.dir.extension(d.tenantId, route.acdExt)?.type !== 'acdExt') return undefined;
  const others = live.filter((l) => l !== caller && l.id !== route.point);
  if (!live.some((l) => l.id === route.point && l.kind === 'point')) return undefined;
  return others.every((l) => l.offerFrom === caller.id && l.kind === 'user') ? caller : undefined;
}

/**
 * Recreates a call without a word to anyone: its legs, indexes and presence counts, as they were.
 * Links (peers, offers, routes) are not made: `linkQueued` makes the one a waiting caller needs.
 */
function rebuild(core: Core, d: DurableCall): { call: Call; legs: Map<string, Leg> } {
  const { legs: _legs, ...fields } = d;
  const call: Call = { ...fields, live: 0, legs: [] };
  const legs = new Map<string, Leg>();
  for (const x of d.legs) {
    const { peer: _p, offerFrom: _o, acdRoute: _r, ...legFields } = x;
    const leg: Leg = { ...legFields, call, tenantId: d.tenantId, closed: x.state === 'ended' };
    call.legs.push(leg);
    legs.set(leg.id, leg);
    core.stateChanges++;
    if (leg.state === 'ended') continue;
    call.live++;
    core.reg.addLeg(leg);
    if (leg.account && leg.kind === 'user') core.presence.restoreCall(leg.account);
    if (leg.pstn) core.reg.pstn.set(leg.id, leg);
    if (leg.parkLocation !== undefined) core.reg.parked.set(parkKey(leg.tenantId, leg.parkLocation), leg);
  }
  core.reg.addCall(call);
  return { call, legs };
}

/**
 * Ends a call its node lost: recreated, then each live leg ends on its own with `reason` (its
 * `end` event, presence, park location), and with the last one the call, with its record.
 */
export function endLostCall(core: Core, d: DurableCall, reason: string): void {
  if (core.reg.calls.has(d.smdrCallId)) return;
  const { call } = rebuild(core, d);
  call.endReason = reason;
  for (const leg of [...call.legs]) endLeg(core, leg, SYSTEM, reason);
}

/**
 * A queued outside caller waits on: the caller and the queue's leg come back, linked, in the
 * queue with their queue time; offers that rang agents end with `reason`. The contact center
 * restores its own side of the call (it is not told `callQueued` again).
 */
export function restoreWaitingCall(core: Core, d: DurableCall, reason: string): boolean {
  const durableCaller = waitingCaller(core, d);
  if (!durableCaller || core.reg.calls.has(d.smdrCallId)) return false;
  const { legs } = rebuild(core, d);
  const caller = legs.get(durableCaller.id)!;
  const route = durableCaller.acdRoute!;
  caller.route = { kind: 'acd', acdExt: route.acdExt, offers: new Map(), point: legs.get(route.point)! };
  core.reg.enqueue(caller);
  for (const leg of legs.values()) {
    if (leg.state === 'ended' || leg === caller || leg.kind !== 'user') continue;
    endLeg(core, leg, SYSTEM, reason);
  }
  return true;
}

/** The tenant is no longer run here: its calls, timers and live presence go, without a word. */
export function dropTenant(core: Core, tenantId: number): void {
  core.stateChanges++;
  for (const call of [...core.reg.calls.values()]) {
    if (call.tenantId !== tenantId) continue;
    for (const leg of call.legs) {
      core.clearLegTimer(leg);
      if (leg.state !== 'ended') core.reg.removeLeg(leg);
    }
    core.reg.removeCall(call);
  }
  for (const [key, leg] of [...core.reg.parked]) if (leg.tenantId === tenantId) core.reg.parked.delete(key);
  core.reg.queued.delete(tenantId);
  core.presence.forgetTenant(tenantId);
}
