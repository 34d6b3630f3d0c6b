/**
 * The SMS/MMS counters on both dialects; on PostgreSQL under the lease fence: a former owner
 * (paused past its lease while another node took the tenant) neither resets nor counts over its
 * successor.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { StaleEpochError } from '../../../src/core/cluster.js';
import { openDatabase } from '../../../src/store/database.js';
import { TextCounterStore } from '../../../src/store/text-counters.js';
import { dropSchemas, testTargets } from '../../helpers/databases.js';
import { grantLease } from '../../helpers/leases.js';

after(dropSchemas);

for (const { name, target } of testTargets()) {
  describe(`text counters (${name})`, () => {
    test('count, read and reset one tenant’s counters', async () => {
      const db = await openDatabase(target());
      const texts = new TextCounterStore(db);
      const standalone = { nodeId: 'standalone', epoch: 0 };
      await texts.increment(1001, 'out_sms', standalone);
      await texts.increment(1001, 'out_sms');
      await texts.increment(1002, 'in_mms', standalone);
      assert.deepEqual(await texts.get(1001), { out_sms: 2, out_mms: 0, in_sms: 0, in_mms: 0 });
      await texts.reset(1001, standalone);
      assert.deepEqual(await texts.get(1001), { out_sms: 0, out_mms: 0, in_sms: 0, in_mms: 0 });
      assert.equal((await texts.get(1002)).in_mms, 1);
      await db.close();
    });

    if (name === 'sqlite') return; // no leases there: SQLite is a standalone server's only
    test('a former owner’s reset and count are refused; the new owner’s counts stay', async () => {
      const db = await openDatabase(target());
      const texts = new TextCounterStore(db);
      const a = { nodeId: 'a', epoch: 1 };
      const b = { nodeId: 'b', epoch: 2 };
      await grantLease(db, 1001, 'a', 1);
      await texts.increment(1001, 'out_sms', a);
      await grantLease(db, 1001, 'b', 2); // b took the tenant over
      await texts.increment(1001, 'out_sms', b);
      await assert.rejects(texts.reset(1001, a), StaleEpochError);
      await assert.rejects(texts.increment(1001, 'in_sms', a), StaleEpochError);
      assert.deepEqual(await texts.get(1001), { out_sms: 2, out_mms: 0, in_sms: 0, in_mms: 0 });
      await db.close();
    });
  });
}
