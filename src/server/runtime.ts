import type { Logger } from 'pino';
import { type Bus, InProcessBus } from '../bus/bus.js';
import type { JetStreamBus } from '../cluster/jetstream-bus.js';
import { ContactCenter } from '../contact-center/contact-center.js';
import { type Clock, createClock } from '../core/clock.js';
import { type Membership, StandaloneMembership } from '../core/cluster.js';
import type { EventStreamSource } from '../core/event-stream.js';
import { CallIdGenerator } from '../core/ids.js';
import { Telemetry } from '../core/telemetry.js';
import { demoWorld } from '../directory/demo-world.js';
import { Directory } from '../directory/directory.js';
import { applyTelcoPasswords } from '../directory/telco-passwords.js';
import { CallRecordStore } from '../store/call-records.js';
import { type DatabaseTarget, type Db, openDatabase } from '../store/database.js';
import { SqlEntityStore } from '../store/entity-store.js';
import { Switch } from '../switch/switch.js';
import type { Config } from './config.js';
import type { TrafficObserver } from '../api/transport/traffic.js';
import type { PlatformEvent } from '../api/platform-events.js';
import { ApiDocs } from '../api/schema/registry.js';

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
  /** Counters and gauges for the operator's metrics (`GET /metrics`). */
  telemetry: Telemetry;
  /** Sees every response and socket frame when set (the contract tests). */
  traffic?: TrafficObserver;
  /** Back to the demo world (simulator reset, `seed --reset`). */
  resetToDemo(): Promise<void>;
  /** Registers state to clear on reset (lock-outs, caches, counters). */
  onReset(hook: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export function databaseTarget(config: Config): DatabaseTarget {
  return config.databaseUrl
    ? { kind: 'postgres', url: config.databaseUrl }
    : { kind: 'sqlite', file: config.db };
}

/** What makes a runtime a cluster node's (src/server/cluster-node.ts builds it; docs/cluster.md). */
export interface ClusterParts {
  membership: Membership;
  /** The node's event bus, started (`JetStreamBus.start`); the runtime closes it, not its connection. */
  events: JetStreamBus;
}

export async function createRuntime(
  config: Config,
  log: Logger,
  target = databaseTarget(config),
  cluster?: ClusterParts,
): Promise<Runtime> {
  const db = await openDatabase(target);
  const directory = await Directory.load(new SqlEntityStore(db));
  const telco = { admin: config.adminPassword, operator: config.operatorPassword };
  if (directory.isEmpty() && config.seed) await directory.replaceAll(demoWorld(telco));
  else await applyTelcoPasswords(directory, telco);
  const clock = createClock(config.clock);
  const bus: Bus<PlatformEvent> =
    cluster?.events ??
    new InProcessBus<PlatformEvent>((e) => log.error({ err: e }, 'event subscriber failed'));
  const telemetry = new Telemetry();
  cluster?.events.offerMetrics(telemetry);
  const callRecords = new CallRecordStore(db);
  const ids = new CallIdGenerator();
  const sw = new Switch({ directory, clock, ids, publish: (e) => bus.publish(e) });
  const contactCenter = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    callRecords,
    publish: (e) => bus.publish(e),
    onRecordError: (err, smdrCallId) => log.error({ err, smdrCallId }, 'call record write failed'),
  });
  // The contact center's one inbound channel: every switch fact, on the tenant's queue.
  sw.setFactListener((fact) => contactCenter.hear(fact));

  const resetHooks: (() => void | Promise<void>)[] = [];
  return {
    config,
    log,
    db,
    directory,
    clock,
    bus,
    ...(cluster ? { eventStream: cluster.events } : {}),
    callRecords,
    switch: sw,
    contactCenter,
    docs: new ApiDocs(),
    membership: cluster?.membership ?? new StandaloneMembership(),
    telemetry,
    async resetToDemo() {
      sw.reset();
      await directory.replaceAll(demoWorld(telco));
      await contactCenter.recordsWritten();
      await callRecords.clear();
      clock.reset();
      await contactCenter.reset();
      sw.resync();
      for (const h of resetHooks) await h();
    },
    onReset(hook) {
      resetHooks.push(hook);
    },
    async close() {
      sw.reset();
      await contactCenter.recordsWritten();
      await cluster?.events.close();
      await db.close();
    },
  };
}
