/**
 * What makes this process a node (docs/cluster.md): a standalone server holds its database alone
 * (the guard, store/holder-guard.ts); with `--nats`, it joins a cluster: a shared hold on the
 * database, a NATS connection, a row in `cluster_nodes` (its call-id slot) and the lease-based
 * membership that decides which tenants it runs. createRuntime opens the node right after the
 * database (before anything is written), binds it to the switch and directory once they exist,
 * and startServer starts the membership once the app is built, so every ownership listener
 * registered while building hears the first gains.
 *
 * Nodes nudge each other on `<prefix>.members` when one takes or hands over tenants, joins or
 * leaves, so the others look at once (and know the new owners) instead of at their next tick.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { NatsConnection } from '@nats-io/transport-node';
import type { ClusterState } from '../api/cluster/plugin.js';
import type { LeaseMembership } from '../cluster/lease-membership.js';
import { CLUSTER_PROTOCOL, type Membership, StandaloneMembership } from '../core/cluster.js';
import type { CallIdGenerator } from '../core/ids.js';
import type { Telemetry } from '../core/telemetry.js';
import type { Directory } from '../directory/directory.js';
import { NodeRegistry } from '../store/cluster-nodes.js';
import type { DatabaseTarget, Db } from '../store/database.js';
import { holdAsClusterNode, holdAsStandalone, thisHolder } from '../store/holder-guard.js';
import { LeaseStore } from '../store/leases.js';
import type { Switch } from '../switch/switch.js';
import { defaultNodeId } from './cluster-config.js';
import type { Config } from './config.js';
import { ConfigError } from './config-error.js';

/** How long after a call of a tenant ends the tenant is not handed over (docs/cluster.md, Placement). */
const JUST_ENDED_MS = 2_000;

/** What the cluster's other pieces (forwarding, events, failover) build on: `runtime.cluster`. */
export interface ClusterContext {
  nats: NatsConnection;
  /** False while the NATS connection is down. */
  natsConnected(): boolean;
  /** `sb.<clusterName>`: every subject of this cluster starts with it. */
  prefix: string;
  nodeId: string;
  clusterName: string;
  /** `SB_<clusterName>_EVENTS`: the JetStream stream of the tenants' events. */
  streamName: string;
  leaseTtlMs: number;
  membership: LeaseMembership;
  leases: LeaseStore;
}

export interface NodeParts {
  directory: Directory;
  switch: Switch;
  ids: CallIdGenerator;
  telemetry: Telemetry;
  /** Whether an event this node raised for the tenant is not in the stream yet (NATS away). */
  unpublished?: (tenantId: number) => boolean;
}

export interface Node {
  nodeId: string;
  /** The node part of call ids (0 standalone). */
  callIdSlot: number;
  membership: Membership;
  cluster?: ClusterContext;
  /** Gives the node what it reads of the runtime (tenants, idle tenants, the id generator). */
  bind(parts: NodeParts): void;
  /** Starts taking tenants (cluster); `url` is shown in GET /cluster unless --advertise-url is set. */
  start(url: string): Promise<void>;
  /** What GET /cluster shows. */
  state(): Promise<ClusterState>;
  /**
   * Before a graceful stop: a cluster node hands its tenants over as their calls end, for at most
   * `--drain-ms` (a standalone server has no one to hand them to).
   */
  drain(): Promise<void>;
  /** Whether it is draining (`/readyz` then answers 503). */
  draining(): boolean;
  /** Leaves: leases released first, then NATS, then the hold on the database. */
  close(): Promise<void>;
}

/**
 * `standIn`: a node of a cluster whose ownership is fixed from outside (tests and benchmarks with
 * a StaticMembership, no `--nats`): it shares the database as cluster nodes do, and is otherwise
 * a standalone node.
 */
export async function openNode(
  config: Config,
  log: Logger,
  db: Db,
  target: DatabaseTarget,
  standIn = false,
): Promise<Node> {
  const nodeId = config.nodeId ?? defaultNodeId(hostname(), process.pid, randomBytes(3).toString('hex'));
  const me = thisHolder(nodeId);
  if (!config.nats.length) {
    const hold = standIn
      ? await holdAsClusterNode(db, target, me, log)
      : await holdAsStandalone(db, target, me, log);
    return standaloneNode(config, nodeId, hold.release, me);
  }
  const hold = await holdAsClusterNode(db, target, me, log);
  // Loaded only here: a standalone server never loads the NATS client (docs/benchmarks.md, "Cold start").
  const [{ LeaseMembership, placement }, { connectNats, eventStreamName, subjectPrefix }] = await Promise.all(
    [import('../cluster/lease-membership.js'), import('../cluster/nats.js')],
  );
  let nats;
  try {
    nats = await connectNats({ servers: config.nats, nodeId, clusterName: config.clusterName, log });
  } catch (e) {
    await hold.release();
    throw new ConfigError((e as Error).message);
  }
  let parts: NodeParts | undefined;
  const prefix = subjectPrefix(config.clusterName);
  const nudge = `${prefix}.members`;
  const leases = new LeaseStore(db);
  const registry = new NodeRegistry(db);
  const membership = new LeaseMembership({
    leases,
    nodes: registry,
    nodeId,
    url: config.advertiseUrl ?? null,
    host: me.host,
    pid: me.pid,
    ttlMs: config.leaseTtlMs,
    tenants: () => (parts?.directory.tenants() ?? []).map((t) => t.tenantId),
    // Idle: no live call, none that ended a moment ago (a client reads its ended call), and no
    // event of it still to publish (they would be the old owner's, stored after the new one's).
    isIdle: (t) =>
      !parts?.switch.hasLiveCalls(t) &&
      !parts?.switch.endedWithin(t, JUST_ENDED_MS) &&
      !parts?.unpublished?.(t),
    eligible: nats.connected,
    onSlot: (slot) => parts?.ids.useNode(slot),
    onMoved: () => nats.nc.publish(nudge, nodeId),
    log,
  });
  let slot: number;
  try {
    slot = await membership.join();
  } catch (e) {
    await nats.close();
    await hold.release();
    throw e;
  }
  const sub = nats.nc.subscribe(nudge, {
    callback: (_err, msg) => {
      if (msg.string() !== nodeId) membership.refresh();
    },
  });
  const cluster: ClusterContext = {
    nats: nats.nc,
    natsConnected: nats.connected,
    prefix,
    nodeId,
    clusterName: config.clusterName,
    streamName: eventStreamName(config.clusterName),
    leaseTtlMs: config.leaseTtlMs,
    membership,
    leases,
  };
  let closing: Promise<void> | undefined;
  return {
    nodeId,
    callIdSlot: slot,
    membership,
    cluster,
    bind(p) {
      parts = p;
      // A tenant added or removed (or a reset) is placed now, not at the next tick.
      p.directory.onChange((c) => {
        if (c.op === 'reset' || c.kind === 'tenant') membership.refresh();
      });
      p.telemetry.offerGauge('cluster_leases_held', {
        help: 'Tenant leases this cluster node holds.',
        read: () => membership.holdings().length,
      });
    },
    async start(url) {
      if (!config.advertiseUrl) membership.setUrl(url);
      await membership.start();
      nats.nc.publish(nudge, nodeId);
    },
    async state() {
      const [{ now, nodes }, { leases: all }] = await Promise.all([registry.list(), leases.list()]);
      return {
        clustered: true,
        clusterName: config.clusterName,
        nodeId,
        leaseTtlMs: config.leaseTtlMs,
        now,
        nodes,
        leases: all,
        tenants: (parts?.directory.tenants() ?? []).map((t) => t.tenantId),
        preferred: placement(nodes),
      };
    },
    drain: () => membership.drain(config.drainMs),
    draining: () => membership.isDraining,
    close() {
      closing ??= (async () => {
        await membership.close();
        sub.unsubscribe();
        await nats.close();
        await hold.release();
      })();
      return closing;
    },
  };
}

function standaloneNode(
  config: Config,
  nodeId: string,
  release: () => Promise<void>,
  me: { host: string; pid: number },
): Node {
  let parts: NodeParts | undefined;
  let url = config.advertiseUrl ?? null;
  const startedAt = Date.now();
  return {
    nodeId,
    callIdSlot: 0,
    membership: new StandaloneMembership(nodeId),
    bind(p) {
      parts = p;
    },
    async start(listening) {
      url ??= listening;
    },
    async state() {
      const now = Date.now();
      const tenants = (parts?.directory.tenants() ?? []).map((t) => t.tenantId);
      return {
        clustered: false,
        nodeId,
        now,
        nodes: [
          {
            nodeId,
            url,
            host: me.host,
            pid: me.pid,
            slot: 0,
            ttlMs: 0,
            eligible: true,
            startedAt,
            heartbeatAt: now,
            protocol: CLUSTER_PROTOCOL,
            alive: true,
          },
        ],
        leases: tenants.map((tenantId) => ({ tenantId, owner: nodeId, epoch: 0, expiresAt: 0 })),
        tenants,
      };
    },
    drain: async () => {},
    draining: () => false,
    close: release,
  };
}
