/**
 * `GET /cluster` (docs/cluster.md § Seeing it): the nodes of the cluster, whether each is alive,
 * and the tenants each holds with their lease epoch and expiry, as the database has them now, so
 * every node answers the same. A standalone server answers one node holding every tenant under
 * epoch 0. An operator route, like `/metrics`: HTTP Basic of a telco administrator, outside the
 * two APIs and their documents.
 */
import type { FastifyInstance } from 'fastify';
import type { NodeInfo } from '../../store/cluster-nodes.js';
import type { Lease } from '../../store/leases.js';
import { type Authenticator, telcoAdminOf } from '../auth/index.js';

/** What the route shows, as the composition reads it (database-clock milliseconds). */
export interface ClusterState {
  clustered: boolean;
  clusterName?: string;
  /** The node answering. */
  nodeId: string;
  leaseTtlMs?: number;
  now: number;
  nodes: NodeInfo[];
  leases: Lease[];
  /** Every tenant there is (unowned ones are listed as such). */
  tenants: number[];
  /** Cluster: each tenant's preferred owner by the same placement the nodes use (undefined: no live node). */
  preferred?: (tenantId: number) => string | undefined;
}

export interface ClusterRouteOptions {
  auth: Authenticator;
  state: () => Promise<ClusterState>;
}

export async function clusterRoute(app: FastifyInstance, opts: ClusterRouteOptions): Promise<void> {
  app.get('/cluster', { config: { undocumented: true } }, async (req, reply) => {
    if (!(await telcoAdminOf(opts.auth, req.headers.authorization, req.ip))) {
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="cluster"')
        .send({ error: 'GET /cluster needs HTTP Basic credentials of a telco administrator.' });
    }
    return reply.header('cache-control', 'no-store').send(render(await opts.state()));
  });
}

const iso = (ms: number) => new Date(ms).toISOString();

export function render(s: ClusterState) {
  const live = s.leases.filter((l) => !s.clustered || l.expiresAt > s.now);
  const owned = new Map<string, Lease[]>();
  for (const l of live) owned.set(l.owner, [...(owned.get(l.owner) ?? []), l]);
  const known = new Set(s.nodes.map((n) => n.nodeId));
  // A lease whose holder's row is gone still names its holder.
  const orphans = [...owned.keys()].filter((id) => !known.has(id));
  const held = new Set(live.map((l) => l.tenantId));
  return {
    clustered: s.clustered,
    ...(s.clusterName ? { clusterName: s.clusterName } : {}),
    answeredBy: s.nodeId,
    ...(s.leaseTtlMs ? { leaseTtlMs: s.leaseTtlMs } : {}),
    time: iso(s.now),
    nodes: [
      ...s.nodes.map((n) => ({
        id: n.nodeId,
        url: n.url,
        host: n.host,
        pid: n.pid,
        startedAt: iso(n.startedAt),
        lastHeartbeat: iso(n.heartbeatAt),
        alive: n.alive,
        ...(s.clustered ? { acceptsTenants: n.eligible, protocol: n.protocol } : {}),
        tenants: tenantsOf(owned.get(n.nodeId), s.clustered),
      })),
      ...orphans.map((id) => ({ id, alive: false, tenants: tenantsOf(owned.get(id), s.clustered) })),
    ],
    unowned: s.tenants.filter((t) => !held.has(t)),
    ...(s.preferred ? movingOf(s.tenants, live, s.preferred) : {}),
  };
}

/**
 * The tenants held by a node other than their preferred owner: their holder hands them over once
 * they are idle (no call, none ended in the last 2 s). `settled`: none moving and none unowned, so
 * no tenant changes hands until a node joins, leaves or loses its NATS connection.
 */
function movingOf(tenants: number[], live: Lease[], preferred: (tenantId: number) => string | undefined) {
  const holder = new Map(live.map((l) => [l.tenantId, l.owner]));
  const moving = tenants
    .filter((t) => holder.has(t) && holder.get(t) !== preferred(t))
    .map((t) => ({ tenantId: t, owner: holder.get(t)!, preferred: preferred(t) ?? null }));
  return { moving, settled: moving.length === 0 && tenants.every((t) => holder.has(t)) };
}

function tenantsOf(leases: Lease[] | undefined, clustered: boolean) {
  return (leases ?? [])
    .sort((a, b) => a.tenantId - b.tenantId)
    .map((l) => ({ tenantId: l.tenantId, epoch: l.epoch, expiresAt: clustered ? iso(l.expiresAt) : null }));
}
