import type { Logger } from 'pino';
import { InProcessBus } from '../bus/bus.js';
import { ContactCenter } from '../contact-center/contact-center.js';
import { LiveStateJournal } from '../contact-center/live-state-journal.js';
import { Takeover } from '../contact-center/takeover.js';
import { type Clock, createClock } from '../core/clock.js';
import { type Membership, StandaloneMembership } from '../core/cluster.js';
import { CallIdGenerator } from '../core/ids.js';
import { Telemetry } from '../core/telemetry.js';
import { demoWorld } from '../directory/demo-world.js';
import { Directory } from '../directory/directory.js';
import { applyTelcoPasswords } from '../directory/telco-passwords.js';
import { CallRecordStore } from '../store/call-records.js';
import { type DatabaseTarget, type Db, openDatabase } from '../store/database.js';
import { type EpochFence, STANDALONE_FENCE } from '../store/epoch-fence.js';
import { LiveStateStore } from '../store/live-state.js';
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
  bus: InProcessBus<PlatformEvent>;
  callRecords: CallRecordStore;
  switch: Switch;
  contactCenter: ContactCenter;
  /** The OpenAPI and AsyncAPI documents, filled in as the APIs register their routes. */
  docs: ApiDocs;
  /** Which tenants this node runs (a standalone server: all of them; docs/cluster.md). */
  membership: Membership;
  /** Refuses durable writes of an owner whose lease epoch is stale (a standalone server: none). */
  epochFence: EpochFence;
  /** Live calls and agent states, durable; what a lost node left, taken over (server/failover.ts). */
  liveState: { store: LiveStateStore; journal: LiveStateJournal; takeover: Takeover };
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

export async function createRuntime(
  config: Config,
  log: Logger,
  target = databaseTarget(config),
): Promise<Runtime> {
  const db = await openDatabase(target);
  const directory = await Directory.load(new SqlEntityStore(db));
  const telco = { admin: config.adminPassword, operator: config.operatorPassword };
  if (directory.isEmpty() && config.seed) await directory.replaceAll(demoWorld(telco));
  else await applyTelcoPasswords(directory, telco);
  const clock = createClock(config.clock);
  const bus = new InProcessBus<PlatformEvent>((e) => log.error({ err: e }, 'event subscriber failed'));
  const callRecords = new CallRecordStore(db);
  const ids = new CallIdGenerator();
  const sw = new Switch({ directory, clock, ids, publish: (e) => bus.publish(e) });
  // Live state and call records are written by the owner's journal, under its lease (failover).
  const liveStore = new LiveStateStore(db, () => runtime.epochFence);
  const journal = new LiveStateJournal(liveStore, {
    lease(tenantId) {
      const epoch = runtime.membership.epochOf(tenantId);
      return epoch === undefined ? undefined : { nodeId: runtime.membership.nodeId, epoch };
    },
    now: () => clock.now(),
    onError: (err, tenantId) => log.error({ err, tenantId }, 'live state write failed'),
  });
  const contactCenter = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    callRecords: journal,
    liveState: journal,
    publish: (e) => bus.publish(e),
    onRecordError: (err, smdrCallId) => log.error({ err, smdrCallId }, 'call record write failed'),
  });
  // The contact center's one inbound channel: every switch fact, on the tenant's queue.
  sw.setFactListener((fact) => contactCenter.hear(fact));
  const takeover = new Takeover(sw, contactCenter, journal);
  journal.setSource(takeover);

  const resetHooks: (() => void | Promise<void>)[] = [];
  const runtime: Runtime = {
    config,
    log,
    db,
    directory,
    clock,
    bus,
    callRecords,
    switch: sw,
    contactCenter,
    docs: new ApiDocs(),
    membership: new StandaloneMembership(),
    epochFence: STANDALONE_FENCE,
    liveState: { store: liveStore, journal, takeover },
    telemetry: new Telemetry(),
    async resetToDemo() {
      sw.reset();
      await directory.replaceAll(demoWorld(telco));
      await contactCenter.recordsWritten();
      await callRecords.clear();
      clock.reset();
      await contactCenter.reset();
      await journal.clear();
      sw.resync();
      for (const h of resetHooks) await h();
    },
    onReset(hook) {
      resetHooks.push(hook);
    },
    async close() {
      // Live calls stay as rows: the next start (or the next owner) ends them with their records.
      await journal.close();
      sw.reset();
      await contactCenter.recordsWritten();
      await db.close();
    },
  };
  return runtime;
}
