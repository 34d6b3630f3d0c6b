/**
 * ACD extensions: the caller waits (`queued`) and the contact center, told by an ACD fact
 * (switch-facts.ts), decides whom to offer the call to. The switch rings agents on request and
 * reports back.
 */
import { conflict, invalid, notFound } from '../core/errors.js';
import type { Extension } from '../directory/model.js';
import type { Core } from './core.js';
import { resolveDialed } from './dial-plan.js';
import { label, segment } from './events.js';
import { newPointLeg } from './groups.js';
import { endLeg } from './lifecycle.js';
import type { Leg, Route } from './model.js';
import { hasPresence } from './presence.js';
import { deliver, destinationId, forwardFromPoint, offerUser, ring, unavailability } from './routing.js';

type AcdRoute = Extract<Route, { kind: 'acd' }>;

export function enqueue(core: Core, caller: Leg, acd: Extension, via?: string): void {
  const point = newPointLeg(core, caller, acd, via);
  caller.state = 'queued';
  caller.queue = acd.ext;
  caller.queuedAt = core.now();
  caller.route = { kind: 'acd', acdExt: acd.ext, offers: new Map(), point };
  const call = caller.call;
  call.queued = true;
  call.acd = acd.ext;
  core.reg.enqueue(caller);
  segment(core, call, 'queued', `Queued in ${label(point.party)}`, point.party);
  const at = core.now();
  const queued = {
    tenantId: caller.tenantId,
    acdExt: acd.ext,
    smdrCallId: call.smdrCallId,
    callerLegId: caller.id,
    callerNumber: caller.presented.number,
    callerName: caller.presented.name,
    dialed: caller.to,
    at,
  };
  core.tell({ type: 'acd', name: 'callQueued', tenantId: caller.tenantId, at, call: queued });
}

/** The waiting caller of a queue call, or a typed error. */
export function queuedCaller(core: Core, smdrCallId: string): { caller: Leg; route: AcdRoute } {
  const call = core.reg.calls.get(smdrCallId);
  if (!call) throw notFound('CALL_NOT_FOUND', `No live call ${smdrCallId}`);
  const caller = core.reg.queuedCaller(call);
  if (caller?.route?.kind !== 'acd') throw conflict('CALL_NOT_QUEUED', 'The call is not waiting in a queue');
  return { caller, route: caller.route };
}

export function offerQueued(core: Core, smdrCallId: string, agentExt: string): Leg {
  const { caller, route } = queuedCaller(core, smdrCallId);
  const agent = core.dir.extension(caller.tenantId, agentExt);
  if (!hasPresence(agent)) throw notFound('EXTENSION_NOT_FOUND', `No user extension ${agentExt}`);
  if (route.offers.has(agentExt)) throw conflict('OFFER_EXISTS', `The call already rings ${agentExt}`);
  const why = unavailability(core, agent);
  if (why) throw conflict('AGENT_UNAVAILABLE', `Extension ${agentExt} cannot take the call (${why})`);
  const leg = offerUser(core, caller, agent, route.point.party.id);
  route.offers.set(agentExt, leg);
  ring(core, leg);
  segment(core, caller.call, 'offered', `Offered to ${label(leg.party)}`, leg.party);
  return leg;
}

export function withdrawOffer(core: Core, smdrCallId: string, agentExt: string, reason: string): void {
  const { route } = queuedCaller(core, smdrCallId);
  const leg = route.offers.get(agentExt);
  if (!leg) throw conflict('OFFER_NOT_FOUND', `The call does not ring ${agentExt}`);
  endLeg(core, leg, leg.party.id, reason || 'withdrawn');
}

export function redirectQueued(core: Core, smdrCallId: string, target: string): void {
  const { caller, route } = queuedCaller(core, smdrCallId);
  const dest = resolveDialed(core.dir, caller.tenantId, target, true);
  if (dest.kind === 'unknown') throw invalid('INVALID_TARGET', `Cannot route to ${target}`);
  for (const o of [...route.offers.values()]) endLeg(core, o, route.point.party.id, 'redirected');
  core.reg.unqueue(caller);
  caller.queue = undefined;
  const to = destinationId(core, dest);
  forwardFromPoint(core, caller, route.point, to);
  segment(core, caller.call, 'redirected', `Redirected from ${label(route.point.party)} to ${to}`);
  deliver(core, caller, dest, route.point.party.id);
}
