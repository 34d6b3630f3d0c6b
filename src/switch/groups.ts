/**
 * Call groups:
 * - hunt: members one after another, each for the group's ring time; busy members are skipped;
 * - broadcast: every available member at once, for the group's ring time;
 * - rollover: the first available member, for the group's ring time.
 * A member who declines passes the call on (hunt, rollover) or drops out (broadcast).
 * When nobody can take the call it ends: `busy` if no member could ring, `noAnswer` otherwise.
 */
import type { Extension } from '../directory/model.js';
import type { Core } from './core.js';
import { label, segment } from './events.js';
import { endLeg, fail, SYSTEM } from './lifecycle.js';
import type { Leg, Route } from './model.js';
import { hasPresence } from './presence.js';
import { DEFAULT_RING_TIMEOUT_MS, offeredLeg, offerUser, ring, unavailability } from './routing.js';

type GroupRoute = Extract<Route, { kind: 'group' }>;

/** A routing point's own leg (ACD, group, auto attendant), observed as its extension's account. */
export function newPointLeg(core: Core, caller: Leg, e: Extension, via?: string): Leg {
  return offeredLeg(core, caller, e, 'point', via);
}

export function startGroup(core: Core, caller: Leg, group: Extension, via?: string): void {
  const members = (group.group?.members ?? []).filter((m) =>
    hasPresence(core.dir.extension(group.tenantId, m)),
  );
  const point = newPointLeg(core, caller, group, via);
  const route: GroupRoute = { kind: 'group', group, members, next: 0, offers: new Set(), point, rang: false };
  caller.route = route;
  segment(core, caller.call, 'called', `Calling group ${label(point.party)}`, point.party);
  if ((group.group?.groupType ?? 'hunt') === 'broadcast') {
    for (const m of members) tryMember(core, caller, route, m);
    if (route.offers.size === 0) {
      exhausted(core, caller, route);
      return;
    }
    core.legTimer(point, ringTime(group), () => exhausted(core, caller, route));
    return;
  }
  advance(core, caller, route);
}

/** A member declined or stopped ringing. */
export function memberDeclined(core: Core, caller: Leg, route: GroupRoute): void {
  if (caller.route !== route) return;
  if ((route.group.group?.groupType ?? 'hunt') === 'broadcast') {
    if (route.offers.size === 0) exhausted(core, caller, route);
    return;
  }
  advance(core, caller, route);
}

function advance(core: Core, caller: Leg, route: GroupRoute): void {
  const hunt = (route.group.group?.groupType ?? 'hunt') === 'hunt';
  while (route.next < route.members.length) {
    const leg = tryMember(core, caller, route, route.members[route.next++]);
    if (!leg) continue;
    if (hunt) {
      core.legTimer(leg, ringTime(route.group), () => {
        endLeg(core, leg, leg.party.id, 'noAnswer');
        advance(core, caller, route);
      });
    } else if (!route.point.timer) {
      core.legTimer(route.point, ringTime(route.group), () => exhausted(core, caller, route));
    }
    return;
  }
  exhausted(core, caller, route);
}

function tryMember(core: Core, caller: Leg, route: GroupRoute, ext: string): Leg | undefined {
  const e = core.dir.extension(route.group.tenantId, ext);
  if (!hasPresence(e) || unavailability(core, e)) return undefined;
  if (caller.account === core.extensionParty(e).account) return undefined;
  const leg = offerUser(core, caller, e, route.point.party.id);
  route.offers.add(leg);
  ring(core, leg);
  route.rang = true;
  return leg;
}

function exhausted(core: Core, caller: Leg, route: GroupRoute): void {
  if (caller.route !== route) return;
  caller.route = undefined;
  for (const o of [...route.offers]) endLeg(core, o, SYSTEM, 'noAnswer');
  const why = route.rang ? 'noAnswer' : 'busy';
  endLeg(core, route.point, SYSTEM, why);
  if (why === 'busy') {
    fail(core, caller, 'Busy', 'Busy', 'busy');
    return;
  }
  segment(core, caller.call, 'unanswered', `Not answered by group ${label(route.point.party)}`);
  endLeg(core, caller, SYSTEM, 'noAnswer');
}

const ringTime = (group: Extension) => group.ringTimeoutMs || DEFAULT_RING_TIMEOUT_MS;
