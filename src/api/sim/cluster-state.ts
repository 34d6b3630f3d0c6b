/**
 * The simulator's views of the whole cluster (docs/cluster.md, Forwarding): a tenant's live state
 * (its phones' registrations and calls, queues, park locations, outside calls) exists only on the
 * node that runs it, so `GET /state` and `GET /pstn/calls` ask every other node for its part
 * (`Placement.gather`) and merge the parts into the answer one node would give. A node asked for
 * its part answers only the tenants it runs and the outside calls it carries.
 */
import type { FastifyRequest } from 'fastify';
import type { SimState } from '../../switch/types.js';
import type { Placement } from '../route-core/placement.js';

/** How a read of the whole cluster is made of this node's answer and the other nodes'. */
export interface ClusterRead<T> {
  /** This node's part when another node asks for it (absent: `local` whole). */
  own?(local: T, placement: Placement): T;
  merge(local: T, parts: T[]): T;
}

/**
 * The read `req` of the whole cluster: `local` on a standalone server, this node's part to the
 * node that asked for it, else `local` merged with every other node's part (`Placement.gather`).
 */
export async function acrossCluster<T>(
  placement: Placement | undefined,
  req: FastifyRequest,
  local: T,
  read: ClusterRead<T>,
): Promise<T> {
  if (!placement) return local;
  if (placement.isForwarded(req)) return read.own ? read.own(local, placement) : local;
  return read.merge(local, (await placement.gather(req)) as T[]);
}

/** The read of `GET /state`. */
export const STATE: ClusterRead<SimState> = {
  own: (s, placement) => ownPart(s, (t) => placement.runsHere(t)),
  merge: mergeParts,
};

/** The read of `GET /pstn/calls`: every node's outside calls (each carries its own). */
export const PSTN_CALLS: ClusterRead<{ calls: SimState['pstnCalls'] }> = {
  merge: (local, parts) => ({ calls: [...local.calls, ...parts.flatMap((p) => p.calls)] }),
};

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
