/**
 * The resumable sessions' table on both dialects: a session taken (begun, claimed) is stored
 * whole under its holder; a held write lands only while the row still names that holder, and a
 * conditional removal only while it names the detachment and holder it was given.
 */
import assert from 'node:assert/strict';
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
  });
}
