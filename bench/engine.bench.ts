// Budget (docs/decisions.md §1.12): the switch engine alone, in process, one core:
//   make + answer + hang up >= 20,000 calls/s; 100,000 concurrent calls in <= 1.5 GiB.
// This process is pinned to one core; it stops by itself in well under two minutes.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock, TimerHandle } from '../src/core/clock.js';
import { CallIdGenerator } from '../src/core/ids.js';
import { Directory, type EntityStore } from '../src/directory/directory.js';
import type { Device, Extension, StoredEntity, Tenant } from '../src/directory/model.js';
import { Switch } from '../src/switch/switch.js';
import type { SwitchEvent } from '../src/switch/types.js';
import { fmt, median, Report } from './lib.js';

const USERS = 20_000;
const THROUGHPUT_CALLS = 100_000;
const CONCURRENT_CALLS = 100_000;
const TENANT = 1001;

const report = new Report('engine');
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * A virtual clock whose timers cost O(1) to set and clear (the engine sets and clears one timer
 * per ringing leg); time never moves here, so due timers are never run.
 */
class BenchClock implements Clock {
  readonly mode = 'virtual' as const;
  private readonly t = Date.UTC(2026, 0, 5, 9);
  private seq = 0;
  private readonly timers = new Map<number, () => void>();
  now() {
    return this.t;
  }
  setTimer(_ms: number, fn: () => void): TimerHandle {
    const id = ++this.seq;
    this.timers.set(id, fn);
    return { id };
  }
  clearTimer(handle: TimerHandle | undefined) {
    if (handle) this.timers.delete(handle.id);
  }
  advance() {
    throw new Error('the bench clock does not move');
  }
  reset() {
    this.timers.clear();
  }
  pending() {
    return this.timers.size;
  }
}

class MemoryStore implements EntityStore {
  private rows: StoredEntity[] = [];
  async loadAll() {
    return this.rows;
  }
  async load() {
    return [];
  }
  async upsert() {}
  async insert() {
    return true;
  }
  async remove() {}
  async replaceAll(entities: StoredEntity[]) {
    this.rows = entities;
  }
}

function world(): StoredEntity[] {
  const out: StoredEntity[] = [];
  const tenant = {
    id: String(TENANT),
    tenantId: TENANT,
    name: 'Bench',
    active: true,
    cc: { uuid: 'bench' },
  } as Tenant;
  out.push({ kind: 'tenant', id: tenant.id, tenantId: TENANT, data: tenant as never });
  for (let i = 0; i < USERS; i++) {
    const ext = String(10_000 + i);
    // Written out, not the provisioning API's blankExtension: a bench user has a name and a fixed uuid.
    const e: Extension = {
      id: `${TENANT}:${ext}`,
      tenantId: TENANT,
      ext,
      type: 'userExt',
      uuid: `u-${ext}`,
      firstName: 'User',
      lastName: ext,
      name: `User ${ext}`,
      admin: false,
      enabled: true,
      dnd: false,
      ringTimeoutMs: 20_000,
      confirmBeforeDial: false,
      ccRoleIds: [],
    };
    const d: Device = {
      id: `ph-${ext}`,
      tenantId: TENANT,
      ownerExt: ext,
      model: 'phoneModelA',
      registered: true,
      macAddress: '',
      lineCount: 50,
      acceptsReinvite: true,
      sendsReinvite: true,
    };
    out.push({ kind: 'extension', id: e.id, tenantId: TENANT, data: e as never });
    out.push({ kind: 'device', id: d.id, tenantId: TENANT, data: d as never });
  }
  return out;
}

const directory = await Directory.load(new MemoryStore());
await directory.replaceAll(world());
const clock = new BenchClock();
let events = 0;
let records = 0;
const sw = new Switch({
  directory,
  clock,
  ids: new CallIdGenerator(),
  publish: (e: SwitchEvent) => {
    events++;
    if (e.type === 'callEnded') records++;
  },
});

const ext = (i: number) => String(10_000 + (i % USERS));

/** make (click to call, the phone goes off-hook itself) + answer on the phone + hang up. */
function oneCall(i: number): void {
  const caller = sw.makeCall({ tenantId: TENANT, fromExt: ext(i), to: ext(i + 1) });
  sw.deviceAnswer(`ph-${ext(i + 1)}`);
  sw.callRequest({ tenantId: TENANT, callObserverId: caller.callObserverId, request: 'hangupCall' });
}

/**
 * Calls per second of wall time, and per second of this process's CPU time: the machine is
 * shared and noisy, and the budget is for one core, so the CPU-time figure is the one judged.
 */
function throughput(calls: number): { wall: number; cpu: number } {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) oneCall(i);
  const wallS = (performance.now() - t0) / 1000;
  const c = process.cpuUsage(c0);
  return { wall: calls / wallS, cpu: calls / ((c.user + c.system) / 1e6) };
}

throughput(20_000);
const rounds = [throughput(THROUGHPUT_CALLS), throughput(THROUGHPUT_CALLS), throughput(THROUGHPUT_CALLS)];
if (sw.legs(TENANT).length !== 0) throw new Error('calls left over after the throughput run');
const cpuRate = median(rounds.map((r) => r.cpu));
const wallRate = median(rounds.map((r) => r.wall));
report.figure('throughput', { rounds, eventsPerCall: events / records });
report.check({
  what: 'make + answer + hang up, in process',
  measured:
    `${fmt(cpuRate)} calls per CPU-second (median of ${rounds.map((r) => fmt(r.cpu)).join(', ')}; ` +
    `wall clock ${fmt(wallRate)}/s; ${(events / records).toFixed(1)} events per call)`,
  budget: '>= 20,000 calls/s',
  pass: cpuRate >= 20_000,
});

gc();
const base = process.memoryUsage();
const callers: string[] = [];
for (let i = 0; i < CONCURRENT_CALLS; i++) {
  const c = sw.makeCall({ tenantId: TENANT, fromExt: ext(i), to: ext(i + 7) });
  sw.deviceAnswer(`ph-${ext(i + 7)}`, undefined);
  callers.push(c.callObserverId);
}
gc();
const loaded = process.memoryUsage();
const live = sw.legs(TENANT);
const connected = live.filter((l) => l.state === 'connected').length;
if (connected !== CONCURRENT_CALLS * 2)
  throw new Error(`expected ${CONCURRENT_CALLS * 2} connected legs, got ${connected}`);
const mib = (n: number) => n / 1024 / 1024;
const heapDelta = loaded.heapUsed - base.heapUsed;
report.figure('concurrent', {
  calls: CONCURRENT_CALLS,
  legs: connected,
  heapDeltaBytes: heapDelta,
  rssBytes: loaded.rss,
});
report.check({
  what: `${fmt(CONCURRENT_CALLS)} concurrent connected calls (${fmt(connected)} legs)`,
  measured:
    `process RSS ${fmt(mib(loaded.rss))} MiB; heap +${fmt(mib(heapDelta))} MiB ` +
    `(${(heapDelta / CONCURRENT_CALLS / 1024).toFixed(2)} KiB per call)`,
  budget: '<= 1.5 GiB',
  pass: loaded.rss <= 1536 * 1024 * 1024,
});
for (const id of callers) sw.callRequest({ tenantId: TENANT, callObserverId: id, request: 'hangupCall' });
if (sw.legs(TENANT).length !== 0) throw new Error('calls left over after the concurrency run');
report.finish();
