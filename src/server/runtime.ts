import type { Logger } from 'pino';
import { InProcessBus } from '../bus/bus.js';
import { ContactCenter } from '../contact-center/contact-center.js';
import { type Clock, createClock } from '../core/clock.js';
import { CallIdGenerator } from '../core/ids.js';
import { Telemetry } from '../core/telemetry.js';
import { demoWorld } from '../directory/demo-world.js';
import { Directory } from '../directory/directory.js';
import { applyTelcoPasswords } from '../directory/telco-passwords.js';
import type { StoredEntity } from '../directory/model.js';
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
  bus: InProcessBus<PlatformEvent>;
  callRecords: CallRecordStore;
  switch: Switch;
  contactCenter: ContactCenter;
  /** The OpenAPI and AsyncAPI documents, filled in as the APIs register their routes. */
  docs: ApiDocs;
  /** Counters and gauges for the operator's metrics (`GET /metrics`). */
  telemetry: Telemetry;
  /** Sees every response and socket frame when set (the contract tests). */
  traffic?: TrafficObserver;
  /** Back to the demo world (simulator reset, `seed --reset`). */
  resetToDemo(): Promise<void>;
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
  async function resetTo(entities: StoredEntity[]): Promise<void> {
    sw.reset();
    await directory.replaceAll(entities);
    await contactCenter.recordsWritten();
    await callRecords.clear();
    clock.reset();
    await contactCenter.reset();
    sw.resync();
    for (const h of resetHooks) await h();
  }
  return {
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
    telemetry: new Telemetry(),
    resetToDemo: () => resetTo(demoWorld(telco)),
    resetTo,
    onReset(hook) {
      resetHooks.push(hook);
    },
    async close() {
      sw.reset();
      await contactCenter.recordsWritten();
      await db.close();
    },
  };
}
