/**
 * The subscription-set reads kept as text (route-core/read-cache.ts; subscription-resources.ts,
 * on `VoiceSockets.generation`): each state is read twice, so the second answer is the kept one,
 * then read again after a change made through the API: a set created, its accounts replaced,
 * added and removed, its park scope and emergency alerts, the socket closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, BOB, CAROL, GRACE, getJson, openSocket, readTwice } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const twice = (path: string, auth = ALICE) => readTwice(s, path, auth);

async function write(method: string, path: string, json?: unknown) {
  const r = await getJson(s, path, ALICE, { method, ...(json === undefined ? {} : { json }) });
  assert.equal(r.status, 200, `${method} ${path}: ${JSON.stringify(r.body)}`);
  return r.body;
}

type List = { _embedded: Record<string, { accountId?: string; subscriptionSetId?: string }[]> };
const accounts = (body: List) => body._embedded.eventAccount.map((a) => a.accountId);
const setIds = (body: List) => body._embedded.subscriptionSets.map((x) => x.subscriptionSetId);

/** Reads until the answer is `status` (the server sees a socket close a moment after the client). */
async function eventuallyStatus(path: string, status: number) {
  let last = 0;
  for (let i = 0; i < 200 && last !== status; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 10));
    last = (await getJson(s, path, ALICE)).status;
  }
  assert.equal(last, status, path);
}

describe('kept subscription-set reads follow every change and never cross callers', () => {
  test('a set created and changed shows in the next read; a closed socket’s sets are gone', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      const SETS = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`;
      assert.deepEqual(setIds(await twice(SETS)), []);
      const created = await write('POST', SETS);
      const SET = `${SETS}/${created.subscriptionSetId}`;
      assert.deepEqual(setIds(await twice(SETS)), [created.subscriptionSetId]);
      assert.equal((await twice(SET)).subscriptionSetId, created.subscriptionSetId);

      const CALLS = `${SET}/calleventaccounts`;
      assert.deepEqual(accounts(await twice(CALLS)), []);
      await write('PUT', CALLS, { eventAccounts: ['101@1001', '102@1001'] });
      assert.deepEqual(accounts(await twice(CALLS)), ['101@1001', '102@1001']);
      await write('PUT', `${CALLS}/103@1001`);
      assert.deepEqual(accounts(await twice(CALLS)), ['101@1001', '102@1001', '103@1001']);
      await write('DELETE', `${CALLS}/101@1001`);
      assert.deepEqual(accounts(await twice(CALLS)), ['102@1001', '103@1001']);

      const PRESENCE = `${SET}/presenceeventaccounts`;
      assert.deepEqual(accounts(await twice(PRESENCE)), []);
      await write('PUT', PRESENCE, { eventAccounts: ['102@1001'] });
      assert.deepEqual(accounts(await twice(PRESENCE)), ['102@1001']);

      const PARK = `${SET}/parklocationeventaccounts`;
      assert.equal((await twice(PARK)).scope, 'none');
      await write('PUT', PARK, { scope: 'all' });
      const all = await twice(PARK);
      assert.equal(all.scope, 'all');
      assert.ok(accounts(all).length > 1, 'every park location of the tenant');
      await write('DELETE', `${PARK}/${accounts(all)[0]}`);
      const fewer = await twice(PARK);
      assert.equal(fewer.scope, 'set');
      assert.deepEqual(accounts(fewer), accounts(all).slice(1));

      const ALERTS = `${SET}/alertevent/emergencycall`;
      assert.equal((await twice(ALERTS)).allSites, false);
      await write('PUT', ALERTS, { allSites: true });
      assert.equal((await twice(ALERTS)).allSites, true);

      const second = await write('POST', SETS);
      assert.deepEqual(setIds(await twice(SETS)), [created.subscriptionSetId, second.subscriptionSetId]);

      // Only the socket's owner reads it, whoever read it before.
      for (const other of [BOB, CAROL, GRACE]) {
        assert.equal((await getJson(s, SETS, other)).status, 404);
        assert.equal((await getJson(s, CALLS, other)).status, 404);
      }

      await sock.close();
      await eventuallyStatus(SETS, 404);
      for (const path of [SET, CALLS, PRESENCE, PARK, ALERTS])
        assert.equal((await getJson(s, path, ALICE)).status, 404, path);
    } finally {
      await sock.close();
    }
  });

  test('another user’s socket answers their own sets, and never the kept answer of the first', async () => {
    // One socket per client (--ws-per-client): one of Alice's, one of Bob's.
    const [alices, bobs] = [await openSocket(s, ALICE), await openSocket(s, BOB)];
    try {
      const sets = (id: string) => `/api/v1/subscriptions/ws/${id}/subscriptionsets`;
      const a = await write('POST', sets(alices.id));
      assert.deepEqual(setIds(await twice(sets(alices.id))), [a.subscriptionSetId]);
      assert.deepEqual(setIds(await twice(sets(bobs.id), BOB)), []);
      const b = await getJson(s, sets(bobs.id), BOB, { method: 'POST' });
      assert.equal(b.status, 200);
      assert.deepEqual(setIds(await twice(sets(bobs.id), BOB)), [b.body.subscriptionSetId]);
      assert.equal((await getJson(s, sets(bobs.id), ALICE)).status, 404, 'not even the tenant admin');
      assert.equal((await getJson(s, sets(alices.id), BOB)).status, 404);
      assert.deepEqual(setIds(await twice(sets(alices.id))), [a.subscriptionSetId]);
    } finally {
      await Promise.all([alices.close(), bobs.close()]);
    }
  });
});
