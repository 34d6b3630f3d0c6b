/**
 * The simulator's views of the whole cluster (docs/cluster.md, Forwarding): a tenant's live state
 * (its phones' registrations and calls, queues, park locations, outside calls) exists only on the
 * node that runs it, so `GET /state` and `GET /pstn/calls` ask every other node for its part
 * (`Placement.gather`) and merge the parts into the answer one node would give. A node asked for
 * its part answers only the tenants it runs and the outside calls it carries.
 */
import type { SimState } from '../../switch/types.js';

/** This node's part: the tenants it runs (`runsHere`), the outside calls it carries. */
export function ownPart(s: SimState, runsHere: (tenantId: number) => boolean): SimState {
  return {
    ...s,
    devices: s.devices.filter((d) => runsHere(d.tenantId)),
    calls: s.calls.filter((c) => runsHere(c.tenantId)),
    queues: s.queues.filter((q) => runsHere(q.tenantId)),
    parkLocations: s.parkLocations.filter((p) => runsHere(p.tenantId)),
  };
}

/**
 * This node's whole view with every other node's part laid over it: a phone, queue or park
 * location as the node running its tenant sees it (the rest as this node sees them: as
 * provisioned, idle), every node's calls and outside calls, oldest first. The clock, the outside
 * numbers' behaviours and the order of the provisioned lists are every node's alike.
 */
export function mergeParts(local: SimState, parts: readonly SimState[]): SimState {
  const byKey = <T>(items: (p: SimState) => T[], key: (t: T) => string) =>
    new Map(parts.flatMap((p) => items(p).map((t) => [key(t), t] as const)));
  const devices = byKey(
    (p) => p.devices,
    (d) => d.deviceId,
  );
  const queues = byKey(
    (p) => p.queues,
    (q) => `${q.tenantId}:${q.acdExt}`,
  );
  const parks = byKey(
    (p) => p.parkLocations,
    (l) => `${l.tenantId}:${l.number}`,
  );
  return {
    ...local,
    devices: local.devices.map((d) => devices.get(d.deviceId) ?? d),
    calls: [...local.calls, ...parts.flatMap((p) => p.calls)].sort((a, b) => a.startedAt - b.startedAt),
    queues: local.queues.map((q) => queues.get(`${q.tenantId}:${q.acdExt}`) ?? q),
    parkLocations: local.parkLocations.map((l) => parks.get(`${l.tenantId}:${l.number}`) ?? l),
    pstnCalls: [...local.pstnCalls, ...parts.flatMap((p) => p.pstnCalls)],
  };
}
