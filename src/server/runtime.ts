import type { Logger } from 'pino';
import { InProcessBus } from '../bus/bus.js';
import { ContactCenter } from '../contact-center/contact-center.js';
import type { CcEvent } from '../contact-center/types.js';
import { type Clock, createClock } from '../core/clock.js';
import { CallIdGenerator } from '../core/ids.js';
import { demoWorld } from '../directory/demo-world.js';
import { Directory } from '../directory/directory.js';
import { applyTelcoPasswords } from '../directory/telco-passwords.js';
import { CallRecordStore } from '../store/call-records.js';
import { type DatabaseTarget, type Db, openDatabase } from '../store/database.js';
import { SqlEntityStore } from '../store/entity-store.js';
import { Switch } from '../switch/switch.js';
import type { SwitchEvent } from '../switch/types.js';
import type { Config } from './config.js';
import type { TrafficObserver } from './traffic.js';
import { ApiDocs } from '../api/schema/registry.js';

export type PlatformEvent = SwitchEvent | CcEvent;

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
  const contactCenter = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    publish: (e) => bus.publish(e),
  });
  sw.setAcdPort(contactCenter.acdPort());

  // The call-record writer: every ended call becomes a durable record.
  const pendingWrites = new Set<Promise<void>>();
  bus.subscribe((e) => {
    if (e.type !== 'callEnded') return;
    const r = e.record;
    const extra = contactCenter.recordDetails(r.smdrCallId);
    const p = callRecords
      .write({
        smdrCallId: r.smdrCallId,
        tenantId: r.tenantId,
        startedAt: r.startedAt,
        answeredAt: r.answeredAt ?? null,
        endedAt: r.endedAt,
        from: r.from.number,
        to: r.to.number,
        outcome: r.outcome,
        data: { ...r, cc: extra },
      })
      .catch((err) => log.error({ err, smdrCallId: r.smdrCallId }, 'call record write failed'))
      .finally(() => pendingWrites.delete(p));
    pendingWrites.add(p);
  });

  // The contact center follows the switch's events (phone states, outbound answers), after the writer.
  bus.subscribe((e) => {
    if (e.type !== 'cc') contactCenter.onSwitchEvent(e);
  });

  const resetHooks: (() => void | Promise<void>)[] = [];
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
    async resetToDemo() {
      sw.reset();
      await directory.replaceAll(demoWorld(telco));
      await Promise.all(pendingWrites);
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
      await Promise.all(pendingWrites);
      await db.close();
    },
  };
}
