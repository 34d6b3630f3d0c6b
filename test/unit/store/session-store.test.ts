/**
 * The resumable sessions' table on both dialects: a session taken (begun, claimed) is stored
 * whole under its holder; a held write lands only while the row still names that holder, and a
 * conditional removal only while it names the detachment and holder it was given.
 */
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, describe, test } from 'node:test';
import type { StoredSession } from '../../../src/core/event-stream.js';
import { openDatabase } from '../../../src/store/database.js';
import { SqlSessionStore } from '../../../src/store/event-log.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';

after(dropSchemas);

const session = (over: Partial<StoredSession> = {}): StoredSession => ({
  id: 's1',
  api: 'voice',
  identity: '102@1001',
  tenantId: 1001,
  state: { sets: ['a'] },
  detachedAt: null,
  holder: 'node-a',
  ...over,
});

for (const { name, target } of testTargets()) {
  describe(`resume sessions on ${name}`, () => {
    test('a held write lands for its holder, not after another attachment took the session', async () => {
      const db = await openDatabase(target());
      const store = new SqlSessionStore(db);
      await store.put(session());
      assert.equal(await store.putHeld({ ...session(), state: { sets: ['b'] }, holder: 'node-a' }), true);
      assert.deepEqual((await store.get('s1'))?.state, { sets: ['b'] });

      await store.put(session({ holder: 'node-b', state: { sets: ['c'] } })); // claimed elsewhere
      const late = { ...session({ detachedAt: 500, state: { sets: ['late'] } }), holder: 'node-a' };
      assert.equal(await store.putHeld(late), false);
      assert.deepEqual(await store.get('s1'), session({ holder: 'node-b', state: { sets: ['c'] } }));
      await db.close();
    });

    test('a held write does not store again a session no longer stored', async () => {
      const db = await openDatabase(target());
      const store = new SqlSessionStore(db);
      assert.equal(await store.putHeld({ ...session({ id: 's2', detachedAt: 7 }), holder: 'node-a' }), false);
      assert.equal(await store.get('s2'), undefined);
      await db.close();
    });

    test('a conditional removal needs the stored detachment and holder', async () => {
      const db = await openDatabase(target());
      const store = new SqlSessionStore(db);
      await store.put(session({ id: 's3', detachedAt: 100, holder: 'node-b' }));
      await store.remove('s3', { detachedAt: 100, holder: 'node-a' });
      await store.remove('s3', { detachedAt: 99, holder: 'node-b' });
      await store.remove('s3', { detachedAt: null });
      assert.ok(await store.get('s3'), 'none of them matched');
      await store.remove('s3', { detachedAt: 100, holder: 'node-b' });
      assert.equal(await store.get('s3'), undefined);

      await store.put(session({ id: 's4', detachedAt: 100, holder: null })); // stored before holders
      await store.remove('s4', { detachedAt: 100, holder: 'node-a' });
      assert.ok(await store.get('s4'));
      await store.remove('s4', { detachedAt: 100, holder: null });
      assert.equal(await store.get('s4'), undefined);
      await db.close();
    });

    if (name === 'sqlite') return; // a cluster's database is PostgreSQL
    test('the sessions of a dead node are let go: detached from now, removed after their grace', async () => {
      const db = await openDatabase(target());
      const { registry, dead } = await twoNodes(db);
      const live = new SqlSessionStore(db, registry);
      const gone = new SqlSessionStore(db, dead);
      await live.put(session({ id: 'live-attached' }));
      await live.put(session({ id: 'live-old', detachedAt: 1_000 }));
      await gone.put(session({ id: 'dead-attached' }));
      await gone.put(session({ id: 'dead-recent', detachedAt: 95_000 }));
      await gone.put(session({ id: 'dead-old', detachedAt: 1_000 }));
      await new SqlSessionStore(db).put(session({ id: 'no-node', holder: null })); // before 0012

      assert.deepEqual(await live.releaseDeadNodes(100_000, 10_000), { detached: 2, removed: 1 });
      const left = new Map((await live.all()).map((s) => [s.id, s.detachedAt]));
      assert.deepEqual(
        Object.fromEntries(left),
        {
          'live-attached': null,
          'live-old': 1_000,
          'dead-attached': 100_000,
          'dead-recent': 95_000,
          'no-node': 100_000,
        },
        "a live node's sessions are its own to end; the dead node's old one is gone",
      );
      assert.deepEqual(await live.releaseDeadNodes(105_000, 10_000), { detached: 0, removed: 1 });
      assert.deepEqual(await live.releaseDeadNodes(110_000, 10_000), { detached: 0, removed: 2 });
      assert.deepEqual((await live.all()).map((s) => s.id).sort(), ['live-attached', 'live-old']);
      await db.close();
    });

    test('a database moved between a standalone server and a cluster: neither resumes the other’s sessions', async () => {
      const db = await openDatabase(target());
      const { registry } = await twoNodes(db);
      const standalone = new SqlSessionStore(db);
      const node = new SqlSessionStore(db, registry);
      await standalone.put(session({ id: 'per-tenant-cursor', detachedAt: 1_000 }));
      await node.put(session({ id: 'stream-cursor', detachedAt: 1_000 }));
      assert.equal(await node.get('per-tenant-cursor'), undefined);
      assert.ok(await node.get('stream-cursor'));
      assert.equal(await standalone.get('stream-cursor'), undefined);
      assert.deepEqual(
        (await standalone.all()).map((s) => s.id),
        ['per-tenant-cursor'],
      );
      await db.close();
    });

    test('a node never lets go of its own sessions, even while its heartbeat is late', async () => {
      const db = await openDatabase(target());
      const { dead } = await twoNodes(db);
      const late = new SqlSessionStore(db, dead); // its own row looks dead to the database
      await late.put(session({ id: 'mine' }));
      await late.put(session({ id: 'mine-old', detachedAt: 1_000 }));
      assert.deepEqual(await late.releaseDeadNodes(100_000, 10_000), { detached: 0, removed: 0 });
      assert.deepEqual((await late.all()).map((s) => [s.id, s.detachedAt]).sort(), [
        ['mine', null],
        ['mine-old', 1_000],
      ]);
      await db.close();
    });

    test('a node starting again under its id counts its sessions stored as attached as detached', async () => {
      const db = await openDatabase(target());
      const { registry, dead } = await twoNodes(db);
      const restarted = new SqlSessionStore(db, registry);
      await restarted.put(session({ id: 'was-open' }));
      await restarted.put(session({ id: 'closed', detachedAt: 400 }));
      await new SqlSessionStore(db, dead).put(session({ id: 'other' }));
      await restarted.detachOwn(500);
      const at = new Map((await restarted.all()).map((s) => [s.id, s.detachedAt]));
      assert.deepEqual(Object.fromEntries(at), { 'was-open': 500, closed: 400, other: null });
      await db.close();
    });

    test("a dead node's session claimed on a live node is that node's", async () => {
      const db = await openDatabase(target());
      const { registry, dead } = await twoNodes(db);
      await new SqlSessionStore(db, dead).put(session({ id: 'back' }));
      const live = new SqlSessionStore(db, registry);
      await live.put(session({ id: 'back', holder: 'claimed' })); // its client resumed here
      assert.deepEqual(await live.releaseDeadNodes(100_000, 10_000), { detached: 0, removed: 0 });
      assert.equal((await live.get('back'))?.detachedAt, null);
      await db.close();
    });
  });
}

/** A live node (heartbeat now) and a dead one (its heartbeat a minute old) in `cluster_nodes`. */
async function twoNodes(db: Awaited<ReturnType<typeof openDatabase>>) {
  const row = (id: string, slot: number, ago: number) => sql`insert into cluster_nodes
    (node_id, url, host, pid, slot, ttl_ms, eligible, started_at, heartbeat_at)
    values (${id}, null, 'h', 1, ${slot}, 5000, 1, 0, (extract(epoch from now()) * 1000)::bigint - ${ago})`;
  await row('node-live', 0, 0).execute(db.kysely);
  await row('node-dead', 1, 60_000).execute(db.kysely);
  return { registry: 'node-live', dead: 'node-dead' };
}
