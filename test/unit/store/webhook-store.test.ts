import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { StaleEpochError } from '../../../src/core/cluster.js';
import { FINISHED_KEPT } from '../../../src/core/webhooks.js';
import { openDatabase } from '../../../src/store/database.js';
import { SqlWebhookStore } from '../../../src/store/webhook-store.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';
import { grantLease } from '../../helpers/leases.js';

after(dropSchemas);

for (const { name, target } of testTargets()) {
  describe(`webhook store on ${name}`, () => {
    test('webhooks and their deliveries survive a reopen, in position order; delete takes the queue', async () => {
      const t = target();
      const db = await openDatabase(t);
      const store = new SqlWebhookStore(db);
      await store.saveWebhook({ id: 'w1', tenantId: 1001, owner: '{"u":1}', state: '{"failing":false}' });
      await store.saveWebhook({ id: 'w1', tenantId: 1001, owner: '{"u":1}', state: '{"failing":true}' });
      await store.saveWebhook({ id: 'w2', tenantId: 1001, owner: '{"u":2}', state: '{}' });
      for (const [id, position] of [
        ['d2', 2],
        ['d1', 1],
      ] as const)
        await store.saveDelivery({
          id,
          webhookId: 'w1',
          position,
          body: `{"n":${position}}`,
          status: 'pending',
          attempts: [],
        });
      await store.saveDelivery({
        id: 'd1',
        webhookId: 'w1',
        position: 1,
        body: '{"n":1}',
        status: 'delivered',
        attempts: [{ at: 5, statusCode: 204, latencyMs: 3 }],
      });
      await store.saveDelivery({
        id: 'd9',
        webhookId: 'w2',
        position: 1,
        body: '{}',
        status: 'pending',
        attempts: [],
      });
      await store.deleteWebhook('w2');
      await db.close();

      const again = await openDatabase(t);
      const loaded = await new SqlWebhookStore(again).loadAll();
      await again.close();
      assert.deepEqual(loaded.webhooks, [
        { id: 'w1', tenantId: 1001, owner: '{"u":1}', state: '{"failing":true}' },
      ]);
      assert.deepEqual(
        loaded.deliveries.map((d) => [d.id, d.position, d.status]),
        [
          ['d1', 1, 'delivered'],
          ['d2', 2, 'pending'],
        ],
      );
      assert.deepEqual(loaded.deliveries[0].attempts, [{ at: 5, statusCode: 204, latencyMs: 3 }]);
    });

    test('an owner’s change applies to the state as stored, keeps a client’s change, never revives', async () => {
      const db = await openDatabase(target());
      const store = new SqlWebhookStore(db);
      const standalone = { tenantId: 1001, nodeId: 'standalone', epoch: 0 };
      const failing = (state: string) => JSON.stringify({ ...JSON.parse(state), failing: true });
      await store.saveWebhook({ id: 'w1', tenantId: 1001, owner: '{}', state: '{"secret":"old"}' });
      // A client rotates after the owner read the webhook; the owner's mark then goes on the new state.
      await store.saveWebhook({ id: 'w1', tenantId: 1001, owner: '{}', state: '{"secret":"new"}' });
      await store.changeWebhook('w1', failing, standalone);
      await store.changeWebhook('w1', () => undefined, standalone);
      // Deleted meanwhile: the owner's change does not bring it back.
      await store.saveWebhook({ id: 'w2', tenantId: 1001, owner: '{}', state: '{}' });
      await store.deleteWebhook('w2');
      await store.changeWebhook('w2', failing, standalone);
      const loaded = await store.loadAll();
      await db.close();
      assert.deepEqual(
        loaded.webhooks.map((w) => [w.id, JSON.parse(w.state)]),
        [['w1', { secret: 'new', failing: true }]],
      );
    });

    if (name === 'sqlite') return; // no leases there: SQLite is a standalone server's only
    test('under the lease fence: a stale owner writes nothing and its lease check is refused', async () => {
      const db = await openDatabase(target());
      const store = new SqlWebhookStore(db);
      const a = { tenantId: 1001, nodeId: 'a', epoch: 1 };
      const b = { tenantId: 1001, nodeId: 'b', epoch: 2 };
      const hook = { id: 'w1', tenantId: 1001, owner: '{}', state: '{"secret":"old"}' };
      const delivery = { id: 'd1', webhookId: 'w1', position: 1, body: '{}', attempts: [] };
      await grantLease(db, 1001, 'a', 1);
      await store.assertLease(a);
      await store.saveWebhook(hook, a);
      await store.saveDelivery({ ...delivery, status: 'pending' }, a);

      // The tenant goes to b under epoch 2; b rotates the secret and delivers.
      await grantLease(db, 1001, 'b', 2);
      await store.saveWebhook({ ...hook, state: '{"secret":"new"}' }, b);
      await store.saveDelivery({ ...delivery, status: 'delivered' }, b);
      await assert.rejects(store.assertLease(a), StaleEpochError);
      await assert.rejects(store.saveWebhook(hook, a), StaleEpochError);
      await assert.rejects(
        store.changeWebhook('w1', () => '{"secret":"old"}', a),
        StaleEpochError,
      );
      await assert.rejects(store.saveDelivery({ ...delivery, status: 'failed' }, a), StaleEpochError);
      await assert.rejects(store.deleteWebhook('w1', a), StaleEpochError);
      await assert.rejects(
        store.saveDelivery({ ...delivery, id: 'd2', status: 'pending' }, a),
        StaleEpochError,
      );
      await store.assertLease(b);

      const loaded = await store.loadAll(1001);
      await db.close();
      assert.deepEqual(
        loaded.webhooks.map((w) => w.state),
        ['{"secret":"new"}'],
      );
      assert.deepEqual(
        loaded.deliveries.map((d) => [d.id, d.status]),
        [['d1', 'delivered']],
      );
    });

    test('a webhook’s stored history stays bounded: old finished deliveries go, pending ones stay', async () => {
      const db = await openDatabase(target());
      const store = new SqlWebhookStore(db);
      await store.saveWebhook({ id: 'w1', tenantId: 1001, owner: '{}', state: '{}' });
      await store.saveWebhook({ id: 'w2', tenantId: 1001, owner: '{}', state: '{}' });
      const delivery = (webhookId: string, position: number, status: 'pending' | 'failed' | 'delivered') =>
        store.saveDelivery({
          id: `${webhookId}-${position}`,
          webhookId,
          position,
          body: '{}',
          status,
          attempts: [],
        });
      await delivery('w2', 1, 'delivered');
      // Position 30 is still pending (queued; later ones finished as "queue full").
      for (let p = 1; p <= 140; p++)
        await delivery('w1', p, p === 30 ? 'pending' : p % 2 ? 'failed' : 'delivered');
      const { deliveries } = await store.loadAll(1001);
      await db.close();
      const w1 = deliveries.filter((d) => d.webhookId === 'w1').map((d) => d.position);
      assert.deepEqual(w1, [30, ...Array.from({ length: FINISHED_KEPT }, (_, i) => 141 - FINISHED_KEPT + i)]);
      assert.deepEqual(
        deliveries.filter((d) => d.webhookId === 'w2').map((d) => d.id),
        ['w2-1'],
        'another webhook’s history is its own',
      );
    });
  });
}
