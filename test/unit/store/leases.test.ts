import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { StaleEpochError } from '../../../src/core/cluster.js';
import type { Db } from '../../../src/store/database.js';
import { assertEpoch } from '../../../src/store/lease-fence.js';
import { LeaseStore } from '../../../src/store/leases.js';
import { clusterEnv } from '../../helpers/cluster.js';
import { freshSchemaDb } from '../../helpers/cluster-db.js';

const env = await clusterEnv();

describe('tenant leases on PostgreSQL', { skip: env.skip }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  let leases: LeaseStore;
  before(async () => {
    ({ db, drop } = await freshSchemaDb());
    leases = new LeaseStore(db);
  });
  after(async () => drop?.());

  it('grants a free lease under epoch 1, and again to its holder under the same epoch, extended', async () => {
    const a = await leases.acquire(1, 'a', 5000);
    assert.equal(a.acquired, true);
    assert.equal(a.epoch, 1);
    assert.ok(a.expiresAt >= a.now + 5000);
    assert.equal('previousOwner' in a && a.previousOwner, false);
    await sleep(20);
    const again = await leases.acquire(1, 'a', 5000);
    assert.ok(again.acquired);
    assert.equal(again.epoch, 1);
    assert.ok(again.expiresAt > a.expiresAt);
  });

  it('refuses a live lease to another node, naming its holder', async () => {
    const b = await leases.acquire(1, 'b', 5000);
    assert.equal(b.acquired, false);
    assert.ok(!b.acquired && b.owner === 'a' && b.epoch === 1);
  });

  it('hands a lapsed lease to another node under the next epoch, naming the previous owner', async () => {
    await leases.acquire(2, 'a', 150);
    await sleep(250);
    const b = await leases.acquire(2, 'b', 5000);
    assert.ok(b.acquired);
    assert.equal(b.epoch, 2);
    assert.equal(b.previousOwner, 'a');
    const list = await leases.list();
    assert.deepEqual(
      list.leases.filter((l) => l.tenantId === 2).map((l) => [l.owner, l.epoch]),
      [['b', 2]],
    );
  });

  it('renews only the leases still held under the given epoch, and not lapsed ones', async () => {
    await leases.acquire(3, 'a', 5000);
    await leases.acquire(4, 'a', 150);
    await sleep(250);
    const r = await leases.renew(
      'a',
      [
        { tenantId: 1, epoch: 1 },
        { tenantId: 2, epoch: 1 }, // taken over by b (epoch 2)
        { tenantId: 3, epoch: 7 }, // not its epoch
        { tenantId: 4, epoch: 1 }, // lapsed
      ],
      5000,
    );
    assert.deepEqual([...r.renewed.keys()], [1]);
    assert.ok(r.renewed.get(1)! >= r.now + 5000);
  });

  it('a released lease is free at once, and the next grant, even to the same node, has a new epoch', async () => {
    await leases.release('a', [{ tenantId: 3, epoch: 1 }]);
    const l = (await leases.list()).leases.find((x) => x.tenantId === 3)!;
    assert.equal(l.expiresAt, 0);
    const again = await leases.acquire(3, 'a', 5000);
    assert.ok(again.acquired);
    assert.equal(again.epoch, 2);
    assert.equal(again.previousOwner, undefined);
  });

  it('release ignores a lease under another epoch (already someone else’s)', async () => {
    await leases.release('a', [{ tenantId: 2, epoch: 1 }]);
    const l = (await leases.list()).leases.find((x) => x.tenantId === 2)!;
    assert.equal(l.owner, 'b');
    assert.ok(l.expiresAt > 0);
  });

  it('of two nodes racing for a free lease exactly one wins', async () => {
    for (let t = 100; t < 110; t++) {
      const [x, y] = await Promise.all([leases.acquire(t, 'a', 5000), leases.acquire(t, 'b', 5000)]);
      assert.equal(Number(x.acquired) + Number(y.acquired), 1, `tenant ${t}`);
    }
  });

  describe('the fence', () => {
    it('passes a write of the current holder under its epoch', async () => {
      await db.kysely.transaction().execute(async (trx) => {
        await assertEpoch(trx, 1, 'a', 1);
        await trx.insertInto('kv').values({ key: 'fenced-ok', value: 'a' }).execute();
      });
      const row = await db.kysely
        .selectFrom('kv')
        .selectAll()
        .where('key', '=', 'fenced-ok')
        .executeTakeFirst();
      assert.equal(row?.value, 'a');
    });

    it('refuses a write under a stale epoch: nothing of the transaction is kept', async () => {
      await assert.rejects(
        db.kysely.transaction().execute(async (trx) => {
          await assertEpoch(trx, 2, 'a', 1); // b holds tenant 2 under epoch 2
          await trx.insertInto('kv').values({ key: 'fenced-stale', value: 'a' }).execute();
        }),
        (e: unknown) => e instanceof StaleEpochError && e.tenantId === 2 && e.epoch === 1,
      );
      const row = await db.kysely
        .selectFrom('kv')
        .selectAll()
        .where('key', '=', 'fenced-stale')
        .executeTakeFirst();
      assert.equal(row, undefined);
    });

    it('refuses a write under a lapsed lease, even one nobody took yet', async () => {
      await leases.acquire(5, 'a', 100);
      await sleep(200);
      await assert.rejects(
        db.kysely.transaction().execute((trx) => assertEpoch(trx, 5, 'a', 1)),
        StaleEpochError,
      );
    });

    it('refuses a node that never held the lease, and a tenant without one', async () => {
      await assert.rejects(
        db.kysely.transaction().execute((trx) => assertEpoch(trx, 1, 'b', 1)),
        StaleEpochError,
      );
      await assert.rejects(
        db.kysely.transaction().execute((trx) => assertEpoch(trx, 999, 'a', 1)),
        StaleEpochError,
      );
    });

    it('epoch 0 (a standalone server) passes without a lease', async () => {
      await db.kysely.transaction().execute((trx) => assertEpoch(trx, 999, 'standalone', 0));
    });

    it('holds off a takeover until the fenced transaction ends', async () => {
      await leases.acquire(6, 'a', 300);
      let committedAt = 0;
      let takenAt = 0;
      const writer = db.kysely.transaction().execute(async (trx) => {
        await assertEpoch(trx, 6, 'a', 1);
        await sleep(500); // the lease lapses meanwhile
        await trx.insertInto('kv').values({ key: 'fenced-slow', value: 'a' }).execute();
        committedAt = performance.now();
      });
      await sleep(350);
      const taker = leases.acquire(6, 'b', 5000).then((r) => {
        takenAt = performance.now();
        return r;
      });
      await writer;
      const r = await taker;
      assert.ok(r.acquired);
      assert.equal(r.epoch, 2);
      assert.ok(takenAt >= committedAt, 'the takeover waited for the fenced write');
    });
  });
});
