// Queries compiled once per shape (src/store/compiled-shapes.ts), on both dialects: a shape run
// again with other values answers for those values, and a shape whose SQL takes its parameters in
// another order than the caller names fails instead of answering wrongly.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type CallRecord, CallRecordStore } from '../../../src/store/call-records.js';
import { CompiledShapes } from '../../../src/store/compiled-shapes.js';
import { openDatabase } from '../../../src/store/database.js';
import { TextCounterStore } from '../../../src/store/text-counters.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';

after(dropSchemas);

const base = Date.UTC(2026, 0, 5, 9, 0, 0);
const record = (id: string, tenantId: number, from: string, at: number): CallRecord => ({
  smdrCallId: id,
  tenantId,
  startedAt: at,
  answeredAt: null,
  endedAt: at + 1000,
  from,
  to: '199',
  outcome: 'Unanswered',
  data: { id },
});
const ids = (rs: CallRecord[]) => rs.map((r) => r.smdrCallId);

for (const { name, target } of testTargets()) {
  describe(`compiled query shapes on ${name}`, () => {
    test('each shape, run again with other values, answers for those values', async () => {
      const db = await openDatabase(target());
      const store = new CallRecordStore(db);
      await store.write(record('1', 1001, '101', base));
      await store.write(record('2', 1001, '102', base + 60_000));
      await store.write(record('3', 1002, '201', base + 30_000));
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(ids(await store.find({ tenantId: 1001 })), ['2', '1']);
        assert.deepEqual(ids(await store.find({ tenantId: 1002 })), ['3']);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, calling: '101' })), ['1']);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, calling: '102' })), ['2']);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, called: '199', limit: 1 })), ['2']);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, called: '199', limit: 2 })), ['2', '1']);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, fromMs: base + 1, toMs: base + 60_000 })), [
          '2',
        ]);
        assert.deepEqual(ids(await store.find({ tenantId: 1001, fromMs: base, toMs: base })), ['1']);
        assert.equal((await store.get(1001, '1'))?.smdrCallId, '1');
        assert.equal(await store.get(1001, '3'), undefined, "another tenant's call");
        assert.equal((await store.get(1002, '3'))?.smdrCallId, '3');
      }
      const texts = new TextCounterStore(db);
      await texts.increment(1001, 'in_sms');
      await texts.increment(1002, 'out_mms');
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(await texts.get(1001), { out_sms: 0, out_mms: 0, in_sms: 1, in_mms: 0 });
        assert.deepEqual(await texts.get(1002), { out_sms: 0, out_mms: 1, in_sms: 0, in_mms: 0 });
      }
      await db.close();
    });

    test('a shape whose parameters are named in another order fails on its first run', async () => {
      const db = await openDatabase(target());
      const shapes = new CompiledShapes(db.kysely);
      const build = () =>
        db.kysely
          .selectFrom('call_records')
          .selectAll()
          .where('tenant_id', '=', 1001)
          .where('started_at', '=', base);
      await assert.rejects(shapes.rows('swapped', [base, 1001], build), /another order/);
      assert.deepEqual(await shapes.rows('right', [1001, base], build), []);
      await db.close();
    });

    test('a shape runs on the executor it is given: in a transaction, it is rolled back with it', async () => {
      const db = await openDatabase(target());
      const shapes = new CompiledShapes<unknown>();
      const row = { tenant_id: 7, out_sms: 1, out_mms: 0, in_sms: 0, in_mms: 0 };
      const build = (on: typeof db.kysely) => () => on.insertInto('text_counters').values(row);
      await assert.rejects(
        db.kysely.transaction().execute(async (trx) => {
          await shapes.rows('insert', Object.values(row), build(trx), trx);
          throw new Error('roll back');
        }),
        /roll back/,
      );
      const counted = () =>
        db.kysely.selectFrom('text_counters').selectAll().where('tenant_id', '=', 7).execute();
      assert.deepEqual(await counted(), [], 'rolled back with its transaction');
      await shapes.rows('insert', Object.values(row), build(db.kysely), db.kysely);
      assert.equal((await counted()).length, 1);
      await assert.rejects(shapes.rows('insert', Object.values(row), build(db.kysely)), /nothing to run on/);
      await db.close();
    });
  });
}
