import type { Logger } from 'pino';
import { type Bus, InProcessBus } from '../bus/bus.js';
import type { JetStreamBus } from '../cluster/jetstream-bus.js';
import { ContactCenter } from '../contact-center/contact-center.js';
import { LiveStateJournal } from '../contact-center/live-state-journal.js';
import { Takeover } from '../contact-center/takeover.js';
import { type Clock, createClock } from '../core/clock.js';
import type { Membership } from '../core/cluster.js';
import type { SharedInflight, SharedLockouts, SharedSocketClaims } from '../core/shared-security.js';
import type { EventStreamSource } from '../core/event-stream.js';
import { CallIdGenerator } from '../core/ids.js';
import { Telemetry } from '../core/telemetry.js';
import { demoWorld } from '../directory/demo-world.js';
import { Directory } from '../directory/directory.js';
import { applyTelcoPasswords } from '../directory/telco-passwords.js';
import type { StoredEntity } from '../directory/model.js';
import { CallRecordStore } from '../store/call-records.js';
import { type DatabaseTarget, type Db, openDatabase } from '../store/database.js';
import { SqlEntityStore } from '../store/entity-store.js';
import { LiveStateStore } from '../store/live-state.js';
import { refuseAnotherProtocol } from '../store/cluster-nodes.js';
import { refuseHeldDatabase, thisHolder } from '../store/holder-guard.js';
import { duringStartup } from '../store/startup-lock.js';
import { Switch } from '../switch/switch.js';
import type { Config } from './config.js';
import { type ClusterContext, type Node, openNode } from './cluster-node.js';
import type { TrafficObserver } from '../api/transport/traffic.js';
import type { PlatformEvent } from '../api/platform-events.js';
import { ApiDocs } from '../api/schema/registry.js';
import { renderAtSource } from './render-at-source.js';
import type { Placement } from '../api/route-core/placement.js';
import type { SharedWorld } from '../cluster/shared-world.js';

/** Everything a running Switchboard holds, shared by the API adapters. */
export interface Runtime {
  config: Config;
  log: Logger;
  db: Db;
  directory: Directory;
  clock: Clock;
  /** In-process standalone; in a cluster the node's JetStream bus (docs/cluster.md, "Events"). */
  bus: Bus<PlatformEvent>;
  /** In a cluster: the cluster's event stream, whose sequences are the continuity cursors. */
  eventStream?: EventStreamSource<PlatformEvent>;
  callRecords: CallRecordStore;
  switch: Switch;
  contactCenter: ContactCenter;
  /** The OpenAPI and AsyncAPI documents, filled in as the APIs register their routes. */
  docs: ApiDocs;
  /** Which tenants this node runs (a standalone server: all of them; docs/cluster.md). */
  membership: Membership;
  /** Live calls and agent states, durable under the lease; what a lost node left, taken over (failover.ts). */
  liveState: { store: LiveStateStore; journal: LiveStateJournal; takeover: Takeover };
  /** This process as a node: its id, the guard's hold, and in a cluster the membership (cluster-node.ts). */
  node: Node;
  /** Cluster mode only: the NATS connection, subject prefix and stream the cluster's pieces use. */
  cluster?: ClusterContext;
  /** In a cluster: failed logins and socket claims counted over every node (docs/cluster.md). */
  sharedLockouts?: SharedLockouts;
  sharedSocketClaims?: SharedSocketClaims;
  /** In a cluster: REST requests in flight and pending sockets per client on the other nodes. */
  sharedInflight?: { requests: SharedInflight; anonymous: SharedInflight; pendingSockets: SharedInflight };
  /** Counters and gauges for the operator's metrics (`GET /metrics`). */
  telemetry: Telemetry;
  /** Sees every response and socket frame when set (the contract tests). */
  traffic?: TrafficObserver;
  /** A cluster node's: where a tenant's requests run (docs/cluster.md § Forwarding); unset: here. */
  placement?: Placement;
  /** Back to the demo world (simulator reset, `seed --reset`): the database and this node. */
  resetToDemo(): Promise<void>;
  /** This node's part of another cluster node's `resetToDemo` (the database is reset already). */
  resetNodeState(): Promise<void>;
  /** A cluster node's: the simulator's clock and reset, for every node (docs/cluster.md § Clock). */
  world?: SharedWorld;
  /** Replaces the world with `entities` as `resetToDemo` does (`seed --scale`), call history emptied. */
  resetTo(entities: StoredEntity[]): Promise<void>;
  /** Registers state to clear on reset (lock-outs, caches, counters). */
  onReset(hook: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl }
    : { kind: 'sqlite', file: config.db };
}

/**
 * A cluster node's parts given from outside: tests and benchmarks that fix the ownership
 * (a StaticMembership) instead of running the lease-based membership of `--nats`.
 */
export interface ClusterParts {
  membership: Membership;
  /** The node's event bus, started (`JetStreamBus.start`); the runtime closes it, not its connection. */
  events: JetStreamBus;
}

export async function createRuntime(
  config: Config,
  log: Logger,
  target = databaseTarget(config),
  parts?: ClusterParts,
  /** A node whose ownership is fixed from outside (`parts`, or a test's own composition). */
  standIn = parts !== undefined,
): Promise<Runtime> {
  // A database another server holds, or a node of another cluster protocol, is refused before
  // this release migrates the database (the guard's hold itself is taken after: openNode).
  const clustered = config.nats.length > 0;
  const db = await openDatabase(target, {
    beforeMigrating: async (k) => {
      const me = thisHolder(config.nodeId ?? '');
      if (clustered) await refuseAnotherProtocol(k, { ...me, nodeId: config.nodeId });
      await refuseHeldDatabase(k, target, me, clustered || standIn ? 'cluster' : 'standalone');
    },
  });
  // The guard, or joining the cluster, comes before anything is written to the database.
  const node = await openNode(config, log, db, target, standIn).catch(async (e: unknown) => {
    await db.close().catch(() => {});
    throw e;
  });
  const telco = { admin: config.adminPassword, operator: config.operatorPassword };
  // One node at a time: cluster nodes started together must not all seed an empty database.
  const directory = await duringStartup(db, async () => {
    const d = await Directory.load(new SqlEntityStore(db));
    if (d.isEmpty() && config.seed) await d.replaceAll(demoWorld(telco));
    else await applyTelcoPasswords(d, telco);
    return d;
  });
  const clock = createClock(config.clock);
  // In a cluster every event goes through the tenant's JetStream subject (docs/cluster.md, "Events").
  const events = parts
    ? parts.events
    : node.cluster
      ? await (
          await import('../cluster/jetstream-bus.js')
        ).JetStreamBus.start({
          nc: node.cluster.nats,
          clusterName: node.cluster.clusterName,
          membership: node.membership,
          retention: { perTenantEvents: config.eventRetention, resumeGraceMs: config.resumeGraceMs },
          log,
        }).catch(async (e: unknown) => {
          await node.close().catch(() => {});
          await db.close().catch(() => {});
          throw e;
        })
      : undefined;
  const bus: Bus<PlatformEvent> =
    events ?? new InProcessBus<PlatformEvent>((e) => log.error({ err: e }, 'event subscriber failed'));
  if (events) events.renderAtSource = renderAtSource(directory);
  const telemetry = new Telemetry();
  events?.offerMetrics(telemetry);
  const callRecords = new CallRecordStore(db);
  const ids = new CallIdGenerator(node.callIdSlot);
  // Live state and call records are written by the owner's journal, fenced by its lease (failover).
  const liveStore = new LiveStateStore(db);
  /** This node's lease on a tenant, which fences the owner's durable writes (failover). */
  const leaseOf = (tenantId: number) => {
    const epoch = runtime.membership.epochOf(tenantId);
    return epoch === undefined ? undefined : { nodeId: runtime.membership.nodeId, epoch };
  };
  const journal = new LiveStateJournal(liveStore, {
    lease: leaseOf,
    now: () => clock.now(),
    onError: (err, tenantId) => log.error({ err, tenantId }, 'live state write failed'),
  });
  const sw = new Switch({
    directory,
    clock,
    ids,
    publish: (e) => {
      bus.publish(e);
      // A phone's registration is live state too: the tenant's next owner starts from it.
      if (e.type === 'device') journal.deviceChanged(e.tenantId, e.deviceId);
    },
    // Every change of a call, also one no event tells (an outside party's, a menu digit).
    onCallChanged: (tenantId, smdrCallId) => journal.callChanged(tenantId, smdrCallId),
  });
  // Every node consumes every event: a phone of a tenant another node runs shows as it is there,
  // and one registered on a tenant's previous owner just before a takeover shows on the new one.
  // Never a node's own (its switch's state, which the stream only replays, late), nor a previous
  // owner's raised under an older lease than the phone's last change (the bus compares epochs).
  const notedWhileStarting = new Set<string>();
  let starting = events !== undefined;
  events?.subscribeOthers(
    ['device'],
    (e) => (e.type === 'device' ? `${e.tenantId}:${e.deviceId}` : ''),
    (e) => {
      if (e.type !== 'device') return;
      if (starting) notedWhileStarting.add(e.deviceId);
      sw.noteRegistration(e.deviceId, e.registered);
    },
  );
  // A cluster node starts from every phone's registration as its owner last wrote it (a phone
  // that changed before this node started raised its event before this node consumed), but not
  // over a phone's event it consumed meanwhile (later than the row).
  if (events) {
    for (const d of await liveStore.devices()) {
      if (!notedWhileStarting.has(d.deviceId) && sw.deviceOf(d.tenantId, d.deviceId))
        sw.noteRegistration(d.deviceId, d.registered);
    }
    starting = false;
  }
  const membership = parts?.membership ?? node.membership;
  const contactCenter = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    callRecords: journal,
    liveState: journal,
    lease: leaseOf,
    publish: (e) => bus.publish(e),
    onRecordError: (err, smdrCallId) => log.error({ err, smdrCallId }, 'call record write failed'),
  });
  // The contact center's one inbound channel: every switch fact, on the tenant's queue.
  sw.setFactListener((fact) => contactCenter.hear(fact));
  const takeover = new Takeover(sw, contactCenter, journal);
  journal.setSource(takeover);
  // A phone removed from the directory: its tenant's owner drops its registration's row.
  directory.onChange((c) => {
    if (c.op !== 'remove' || c.kind !== 'device') return;
    const { id, tenantId } = c.before as unknown as { id: string; tenantId: number };
    if (runtime.membership.owns(tenantId)) journal.deviceChanged(tenantId, id);
  });
  node.bind({
    directory,
    switch: sw,
    ids,
    telemetry,
    ...(events ? { unpublished: (t: number) => events.unpublished(t) } : {}),
  });

  // Lock-outs and socket claims count over every node (docs/cluster.md, "Security state").
  const security = node.cluster
    ? (await import('../cluster/security-sync.js')).startClusterSecurity({
        db,
        nats: node.cluster.nats,
        prefix: node.cluster.prefix,
        nodeId: node.nodeId,
        ttlMs: node.cluster.leaseTtlMs,
        log,
      })
    : undefined;

  const resetHooks: (() => void | Promise<void>)[] = [];
  /** Everything of a reset after the switch's live state and the directory. */
  const resetTheRest = async () => {
    await contactCenter.recordsWritten();
    await callRecords.clear();
    clock.reset();
    await contactCenter.reset();
    await journal.clear();
    sw.resync();
    for (const h of resetHooks) await h();
  };
  async function resetTo(entities: StoredEntity[]): Promise<void> {
    sw.reset();
    await directory.replaceAll(entities);
    await resetTheRest();
  }
  const runtime: Runtime = {
    config,
    log,
    db,
    directory,
    clock,
    bus,
    ...(events ? { eventStream: events } : {}),
    callRecords,
    switch: sw,
    contactCenter,
    docs: new ApiDocs(),
    membership,
    liveState: { store: liveStore, journal, takeover },
    node,
    ...(node.cluster ? { cluster: node.cluster } : {}),
    ...(security
      ? {
          sharedLockouts: security.lockouts,
          sharedSocketClaims: security.socketClaims,
          sharedInflight: security.inflight.pools,
        }
      : {}),
    telemetry,
    resetToDemo: () => resetTo(demoWorld(telco)),
    resetTo,
    async resetNodeState() {
      sw.reset();
      await resetTheRest();
    },
    onReset(hook) {
      resetHooks.push(hook);
    },
    async close() {
      try {
        // Written under the leases, before anything drops a call: live calls stay as rows, and
        // the next start (or the next owner) ends them with their records.
        await journal.close();
        sw.reset();
        await contactCenter.recordsWritten();
        await security?.close();
        await events?.close();
      } finally {
        // Written under its leases; then they go (others take over), then NATS and the guard,
        // even when a part above failed to close: a node that stops must not hold its tenants.
        await node.close().finally(() => db.close());
      }
    },
  };
  return runtime;
}
