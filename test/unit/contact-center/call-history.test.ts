import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callHistory, DAY_MS } from '../../../src/contact-center/call-history.js';
import { CALL_ID_EPOCH_MS } from '../../../src/core/ids.js';
import { Directory } from '../../../src/directory/directory.js';
import { scaleWorld } from '../../../src/directory/scale-world.js';
import type { CallRecordData } from '../../../src/switch/types.js';

const world = () =>
  Directory.load({
    loadAll: async () => scaleWorld(2),
    load: async () => [],
    upsert: async () => {},
    insert: async () => true,
    remove: async () => {},
    replaceAll: async () => {},
  });
const END = Date.UTC(2025, 6, 1);
const options = { seed: 'test', days: 14, endMs: END, records: 2000 };

test('the history holds exactly the calls asked for, in its days, with unique ids in time order', async () => {
  const d = await world();
  const records = [...callHistory(d, options)];
  assert.equal(records.length, 2000);
  const ids = records.map((r) => r.smdrCallId);
  assert.equal(new Set(ids).size, ids.length);
  for (let i = 1; i < records.length; i++) {
    assert.ok(records[i].startedAt >= records[i - 1].startedAt, 'in time order');
    assert.ok(BigInt(ids[i]) > BigInt(ids[i - 1]), 'ids grow with time');
  }
  for (const r of records) {
    assert.ok(r.startedAt >= END - 14 * DAY_MS && r.startedAt < END, 'within the days asked for');
    assert.ok(r.endedAt > r.startedAt);
    assert.equal(Number(r.smdrCallId) % 16, 0);
    assert.equal(
      Math.floor(Number(r.smdrCallId) / 16 / 1000) + CALL_ID_EPOCH_MS,
      r.startedAt,
      'the id of its instant',
    );
    assert.ok(Number.isSafeInteger(Number(r.smdrCallId)));
  }
  // Every tenant has calls, Acme (7 users) about twice as many as Globex (3).
  const per = new Map<number, number>();
  for (const r of records) per.set(r.tenantId, (per.get(r.tenantId) ?? 0) + 1);
  assert.deepEqual([...per.keys()].sort(), [1001, 1002, 1003, 1004]);
  const ratio = per.get(1001)! / per.get(1002)!;
  assert.ok(ratio > 1.8 && ratio < 2.9, `Acme to Globex ${ratio}`);
  // Weekdays are busier than weekends.
  const byWeekday = new Array(7).fill(0);
  for (const r of records) byWeekday[new Date(r.startedAt).getUTCDay()]++;
  assert.ok(byWeekday[3] > 2 * byWeekday[0], `Wednesday ${byWeekday[3]} against Sunday ${byWeekday[0]}`);
});

test('every kind of call appears, each party from the tenant of the call', async () => {
  const d = await world();
  const kinds = new Map<string, number>();
  for (const r of callHistory(d, options)) {
    const data = r.data as unknown as CallRecordData & { cc?: { outboundQueueId?: string } };
    const kind = data.cc ? (data.cc.outboundQueueId ? 'dial' : 'queue') : data.direction;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    for (const p of data.parties) {
      if (!p.account) continue;
      const [ext, tenant] = p.account.split('@');
      assert.equal(Number(tenant), r.tenantId);
      assert.ok(d.extension(r.tenantId, ext), `${p.account} exists`);
    }
    if (data.acd) assert.equal(d.extension(r.tenantId, data.acd)?.type, 'acdExt');
    if (data.direction === 'in') assert.equal(d.didByNumber(data.to.number)?.tenantId, r.tenantId);
  }
  for (const k of ['internal', 'out', 'queue', 'dial'])
    assert.ok((kinds.get(k) ?? 0) > 50, `${k}: ${kinds.get(k)}`);
});

test('the same seed gives the same history, another seed another one', async () => {
  const d = await world();
  const a = [...callHistory(d, options)];
  assert.deepEqual([...callHistory(d, options)], a);
  assert.notDeepEqual([...callHistory(d, { ...options, seed: 'other' })], a);
});

test('a history that would start before the epoch of call ids is refused', async () => {
  const d = await world();
  assert.throws(() => [...callHistory(d, { ...options, days: 200 })], /before 2025-01-01/);
  assert.throws(() => [...callHistory(d, { ...options, days: 0 })], RangeError);
});
