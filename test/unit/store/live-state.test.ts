/**
 * The live-state tables on both dialects: a batch upserts calls and agents and writes records
 * with the removal of their rows, in one transaction (a standalone server's epoch 0). On
 * PostgreSQL, under real lease rows and the lease fence: a claim hands what earlier epochs left
 * to the new lease, and a write or claim under a stale lease leaves everything as it was.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { StaleEpochError } from '../../../src/core/cluster.js';
import { CallRecordStore } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import type { Db } from '../../../src/store/database.js';
import { type LiveStateBatch, LiveStateStore } from '../../../src/store/live-state.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';
import { grantLease as grant } from '../../helpers/leases.js';

after(dropSchemas);

const batch = (over: Partial<LiveStateBatch>): LiveStateBatch => ({
  tenantId: 1001,
  lease: { nodeId: 'standalone', epoch: 0 },
  at: 100,
  calls: [],
  agents: [],
  devices: [],
  removed: [],
  records: [],
  ...over,
});

const call = (
  smdrCallId: string,
  version = 1,
  waiting = false,
  history = { from: 0, items: [] as unknown[] },
) => ({
  smdrCallId,
  waiting,
  startedAt: Number(smdrCallId),
  data: { version },
  history,
});

/** The record of an unanswered call of tenant 1001. */
const unanswered = (smdrCallId: string) => ({
  smdrCallId,
  tenantId: 1001,
  startedAt: 10,
  answeredAt: null,
  endedAt: 11,
  from: '101',
  to: '102',
  outcome: 'Unanswered',
  data: {},
});

/** The history rows stored, as [call, seq, item]. */
async function historyRows(db: Db): Promise<[string, number, unknown][]> {
  const rows = await db.kysely.selectFrom('live_call_history').selectAll().execute();
  return rows
    .map((r): [string, number, unknown] => [r.smdr_call_id, Number(r.seq), JSON.parse(r.data)])
    .sort((a, b) => a[0].localeCompare(b[0]) || a[1] - b[1]);
}

for (const { name, target } of testTargets()) {
  describe(`live state on ${name}`, () => {
    test('batches upsert calls and agents, write records with the removal of their rows', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      await store.apply(
        batch({
          calls: [call('10'), call('11'), call('12', 1, true)],
          agents: [{ ext: '103', data: { agentState: 'Break' } }],
          devices: [
            { deviceId: 'ph1001-102', registered: false },
            { deviceId: 'ph1001-103', registered: false },
          ],
        }),
      );
      await store.apply(batch({ tenantId: 1002, calls: [call('20')] }));
      await store.apply(batch({ devices: [{ deviceId: 'ph1001-103', registered: true }] }));
      await store.apply(
        batch({
          at: 200,
          calls: [call('11', 2)],
          removed: ['10'],
          records: [
            {
              smdrCallId: '12',
              tenantId: 1001,
              startedAt: 12,
              answeredAt: null,
              endedAt: 13,
              from: '+15551230001',
              to: '500',
              outcome: 'Abandoned',
              data: { note: 'ended' },
            },
          ],
        }),
      );
      const all = await store.loadAll();
      assert.deepEqual(
        all.calls.map((c) => [c.tenantId, c.smdrCallId, c.data, c.updatedAt, c.epoch]),
        [
          [1001, '11', { version: 2 }, 200, 0],
          [1002, '20', { version: 1 }, 100, 0],
        ],
      );
      assert.deepEqual(
        all.agents.map((a) => [a.tenantId, a.ext, a.data]),
        [[1001, '103', { agentState: 'Break' }]],
      );
      assert.deepEqual(
        all.devices.map((d) => [d.tenantId, d.deviceId, d.registered]),
        [
          [1001, 'ph1001-102', false],
          [1001, 'ph1001-103', true],
        ],
      );
      assert.deepEqual(await store.devices(), all.devices);
      // A phone no longer provisioned: its row goes (and only its tenant's).
      await store.apply(batch({ tenantId: 1002, devicesGone: ['ph1001-102'] }));
      assert.equal((await store.devices()).length, 2);
      await store.apply(batch({ devicesGone: ['ph1001-102'] }));
      assert.deepEqual(
        (await store.devices()).map((d) => d.deviceId),
        ['ph1001-103'],
      );
      assert.equal((await new CallRecordStore(db).get(1001, '12'))?.outcome, 'Abandoned');
      await store.clear();
      assert.deepEqual(await store.loadAll(), { calls: [], agents: [], devices: [] });
      await db.close();
    });

    test('the last time an owner wrote what is still stored', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      assert.equal(await store.lastWrittenAt(), undefined, 'nothing stored');
      await store.apply(batch({ at: 100, calls: [call('10')] }));
      await store.apply(batch({ at: 250, agents: [{ ext: '103', data: {} }] }));
      await store.apply(batch({ at: 180, calls: [call('11')] }));
      assert.equal(await store.lastWrittenAt(), 250);
      await db.close();
    });

    test('the same batch shapes again (kept compiled) write the new values; a larger batch too', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      const records = new CallRecordStore(db);
      for (const round of [1, 2, 3]) {
        await store.apply(
          batch({
            at: 100 * round,
            calls: [{ ...call('30', round, round % 2 === 1), startedAt: 30 + round }],
            agents: [{ ext: '103', data: { round } }],
            records: [{ ...unanswered('31'), outcome: `round ${round}`, data: { round } }],
          }),
        );
        const all = await store.loadAll();
        assert.deepEqual(
          all.calls.map((c) => [c.smdrCallId, c.data, c.waiting, c.startedAt, c.updatedAt]),
          [['30', { version: round }, round % 2 === 1, 31, 100 * round]],
          'a call upserted again keeps its start and takes the rest',
        );
        assert.deepEqual(
          all.agents.map((a) => [a.ext, a.data, a.updatedAt]),
          [['103', { round }, 100 * round]],
        );
        const rewritten = await records.get(1001, '31');
        assert.deepEqual([rewritten?.outcome, rewritten?.data], [`round ${round}`, { round }]);
      }
      // More rows than a kept shape holds: built for itself.
      const many = Array.from({ length: 40 }, (_, i) => call(String(100 + i)));
      await store.apply(batch({ calls: many, removed: ['30'] }));
      await store.apply(batch({ removed: many.map((c) => c.smdrCallId) }));
      assert.deepEqual((await store.loadAll()).calls, []);
      await db.close();
    });

    test("a call's history: added to from where it stands, replaced from 0, gone with the call", async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      const h = (from: number, ...items: string[]) => ({ from, items });
      await store.apply(
        batch({ calls: [call('10', 1, false, h(0, 'a', 'b')), call('11', 1, false, h(0, 'x'))] }),
      );
      await store.apply(batch({ calls: [call('10', 2, false, h(2, 'c'))] }));
      await store.apply(batch({ calls: [call('10', 3, false, h(3))] }));
      let all = await store.loadAll();
      assert.deepEqual(
        all.calls.map((c) => [c.smdrCallId, c.data, c.history]),
        [
          ['10', { version: 3 }, ['a', 'b', 'c']],
          ['11', { version: 1 }, ['x']],
        ],
      );
      // From 0, what was stored goes (a new owner's first write, or one after a failed batch).
      await store.apply(batch({ calls: [call('11', 2, false, h(0, 'y', 'z'))] }));
      all = await store.loadAll();
      assert.deepEqual(all.calls.find((c) => c.smdrCallId === '11')?.history, ['y', 'z']);
      // Many items, more than one statement carries.
      const many = Array.from({ length: 2500 }, (_, i) => `s${i}`);
      await store.apply(batch({ calls: [call('12', 1, false, h(0, ...many))] }));
      all = await store.loadAll();
      assert.deepEqual(all.calls.find((c) => c.smdrCallId === '12')?.history, many);
      // A call ends (its record) or goes (a reset): its history goes with its row.
      const record = unanswered('10');
      await store.apply(batch({ removed: ['12'], records: [record] }));
      assert.deepEqual(await historyRows(db), [
        ['11', 0, 'y'],
        ['11', 1, 'z'],
      ]);
      await store.clear();
      assert.deepEqual(await historyRows(db), []);
      await db.close();
    });

    test('a row written before the history table keeps its history in its data', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      const data = { call: { smdrCallId: '10', segments: [{ at: 1, kind: 'ring', text: 'old' }] } };
      await db.kysely
        .insertInto('live_calls')
        .values({
          tenant_id: 1001,
          smdr_call_id: '10',
          owner_node: 'standalone',
          epoch: 0,
          waiting: 0,
          started_at: 10,
          data: JSON.stringify(data),
          updated_at: 100,
        })
        .execute();
      const [c] = (await store.loadAll()).calls;
      assert.deepEqual([c?.data, c?.history], [data, []]);
      await db.close();
    });

    if (name === 'sqlite') return; // no leases there: SQLite is a standalone server's only
    test('under the lease fence: a claim takes what earlier epochs left; a stale lease writes nothing', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db);
      const a = { nodeId: 'a', epoch: 1 };
      const b = { nodeId: 'b', epoch: 2 };
      await grant(db, 1001, 'a', 1);
      await grant(db, 1002, 'a', 1);
      await store.apply(
        batch({
          lease: a,
          calls: [call('10', 1, false, { from: 0, items: ['p', 'q'] }), call('11')],
          agents: [{ ext: '103', data: { s: 1 } }],
        }),
      );
      await store.apply(batch({ tenantId: 1002, lease: a, calls: [call('20')] }));

      // Tenant 1001 goes to b under epoch 2: a is refused from now on, writing nothing.
      await grant(db, 1001, 'b', 2);
      const record = unanswered('10');
      await assert.rejects(
        store.apply(batch({ lease: a, calls: [call('12')], records: [record] })),
        StaleEpochError,
      );
      await assert.rejects(store.claim(1001, a), StaleEpochError);
      assert.equal(await new CallRecordStore(db).get(1001, '10'), undefined);

      const left = await store.claim(1001, b);
      assert.deepEqual(
        left.calls.map((c) => [c.smdrCallId, c.ownerNode, c.epoch]),
        [
          ['10', 'a', 1],
          ['11', 'a', 1],
        ],
      );
      assert.deepEqual(
        left.calls.map((c) => c.history),
        [['p', 'q'], []],
        'each claimed call with its own steps',
      );
      assert.deepEqual(
        left.agents.map((x) => [x.ext, x.data]),
        [['103', { s: 1 }]],
      );
      const again = await store.claim(1001, b);
      assert.deepEqual(again.calls, [], 'claimed once: the rows are epoch 2 now');
      assert.equal(again.agents.length, 1, "agents are the tenant's, whatever the epoch");
      const rows = await db.kysely
        .selectFrom('live_calls')
        .select(['smdr_call_id', 'owner_node', 'epoch'])
        .execute();
      assert.deepEqual(rows.map((r) => [r.smdr_call_id, r.owner_node, Number(r.epoch)]).sort(), [
        ['10', 'b', 2],
        ['11', 'b', 2],
        ['20', 'a', 1],
      ]);
      // b's own writes pass.
      await store.apply(batch({ lease: b, records: [record] }));
      assert.equal((await new CallRecordStore(db).get(1001, '10'))?.outcome, 'Unanswered');
      await db.close();
    });
  });
}
