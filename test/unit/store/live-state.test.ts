/**
 * The live-state tables on both dialects: a batch upserts calls and agents and writes records
 * with the removal of their rows, in one transaction; a claim hands what earlier epochs left to
 * the new lease; a refused fence leaves everything as it was.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { StaleEpochError } from '../../../src/core/cluster.js';
import { CallRecordStore } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import { type EpochFence, STANDALONE_FENCE } from '../../../src/store/epoch-fence.js';
import { type LiveStateBatch, LiveStateStore } from '../../../src/store/live-state.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';

after(dropSchemas);

const batch = (over: Partial<LiveStateBatch>): LiveStateBatch => ({
  tenantId: 1001,
  lease: { nodeId: 'a', epoch: 1 },
  at: 100,
  calls: [],
  agents: [],
  removed: [],
  records: [],
  ...over,
});

const call = (smdrCallId: string, version = 1, waiting = false) => ({
  smdrCallId,
  waiting,
  startedAt: Number(smdrCallId),
  data: { version },
});

for (const { name, target } of testTargets()) {
  describe(`live state on ${name}`, () => {
    test('batches upsert, record and remove; a claim takes what earlier epochs left', async () => {
      const db = await openDatabase(target());
      const store = new LiveStateStore(db, () => STANDALONE_FENCE);
      await store.apply(
        batch({
          calls: [call('10'), call('11'), call('12', 1, true)],
          agents: [{ ext: '103', data: { agentState: 'Break' } }],
        }),
      );
      await store.apply(batch({ tenantId: 1002, calls: [call('20')] }));
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
        all.calls.map((c) => [c.tenantId, c.smdrCallId, c.data, c.updatedAt]),
        [
          [1001, '11', { version: 2 }, 200],
          [1002, '20', { version: 1 }, 100],
        ],
      );
      assert.equal((await new CallRecordStore(db).get(1001, '12'))?.outcome, 'Abandoned');

      const left = await store.claim(1001, { nodeId: 'b', epoch: 2 });
      assert.deepEqual(
        left.calls.map((c) => [c.smdrCallId, c.ownerNode, c.epoch]),
        [['11', 'a', 1]],
      );
      assert.deepEqual(
        left.agents.map((a) => [a.ext, a.data]),
        [['103', { agentState: 'Break' }]],
      );
      const again = await store.claim(1001, { nodeId: 'b', epoch: 2 });
      assert.deepEqual(again.calls, [], 'claimed once: the rows are epoch 2 now');
      assert.equal(again.agents.length, 1, "agents are the tenant's, whatever the epoch");
      const rows = await db.kysely
        .selectFrom('live_calls')
        .select(['smdr_call_id', 'owner_node', 'epoch'])
        .execute();
      assert.deepEqual(rows.map((r) => [r.smdr_call_id, r.owner_node, Number(r.epoch)]).sort(), [
        ['11', 'b', 2],
        ['20', 'a', 1],
      ]);
      await store.clear();
      assert.deepEqual(await store.loadAll(), { calls: [], agents: [] });
      await db.close();
    });

    test('a refused fence writes nothing of the batch', async () => {
      const db = await openDatabase(target());
      let current = 1;
      const fence: EpochFence = {
        async assert(_trx, tenantId, _node, epoch) {
          if (epoch !== current) throw new StaleEpochError(tenantId, epoch);
        },
      };
      const store = new LiveStateStore(db, () => fence);
      await store.apply(batch({ calls: [call('10')] }));
      current = 2;
      const record = {
        smdrCallId: '10',
        tenantId: 1001,
        startedAt: 10,
        answeredAt: null,
        endedAt: 11,
        from: '101',
        to: '102',
        outcome: 'Unanswered',
        data: {},
      };
      await assert.rejects(store.apply(batch({ calls: [call('11')], records: [record] })), StaleEpochError);
      await assert.rejects(store.claim(1001, { nodeId: 'a', epoch: 1 }), StaleEpochError);
      assert.deepEqual(
        (await store.loadAll()).calls.map((c) => c.smdrCallId),
        ['10'],
      );
      assert.equal(await new CallRecordStore(db).get(1001, '10'), undefined);
      await db.close();
    });
  });
}
