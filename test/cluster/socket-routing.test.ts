import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClusterNode, clusterSkip, suiteCluster } from '../helpers/cluster-nodes.js';
import { ALICE, BOB, CAROL, getJson, openSocket } from '../api/voice/voice-helpers.js';

/**
 * A voice socket's subscription sets live on the node that holds the socket; a request on them
 * made on any node goes there (docs/cluster.md § Forwarding). Node a owns tenant 1001, node b
 * 1002; Alice (1001) opens her socket on b.
 */
const skip = await clusterSkip();

describe('requests on a voice socket go to the node that holds it', { skip }, () => {
  let a: ClusterNode;
  let b: ClusterNode;
  suiteCluster((c) => ([a, b] = c.nodes));

  test('sets are made and read through either node, alike', async () => {
    const sock = await openSocket(b, ALICE);
    try {
      const sets = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`;
      const made = await getJson(a, sets, ALICE, { method: 'POST', headers: { 'x-request-id': 'mk' } });
      assert.equal(made.status, 200);
      const setId = made.body.subscriptionSetId as string;
      const self = `${sets}/${setId}`;
      const accounts = `${self}/calleventaccounts/101@1001`;
      assert.equal((await getJson(a, accounts, ALICE, { method: 'PUT' })).status, 200);
      const read = async (node: ClusterNode, path: string, auth = ALICE) => {
        const r = await node.fetch(path, { auth, headers: { 'x-request-id': 'rd' } });
        const headers = Object.fromEntries(
          [...r.headers].filter(([k]) => !['date', 'connection', 'keep-alive'].includes(k)),
        );
        return { status: r.status, headers, body: await r.text() };
      };
      for (const path of [sets, self, `${self}/calleventaccounts`]) {
        const onB = await read(b, path);
        assert.equal(onB.status, 200, path);
        assert.deepEqual(await read(a, path), onB, path);
      }
      assert.match((await read(a, `${self}/calleventaccounts`)).body, /101@1001/);
      // Another user is told the socket does not exist, wherever they ask.
      assert.deepEqual(await read(a, self, CAROL), await read(b, self, CAROL));
      assert.equal((await read(a, self, CAROL)).status, 404);
    } finally {
      await sock.close();
    }
  });

  test('a new socket, plain or resumable, takes a set made at once on the other node', async () => {
    // A plain socket's first frame waits for the holder's subscription (Placement.socketsHeard);
    // a request on an unknown socket looks again for a second. Before, a request on the id sent
    // at once to the other node could find no holder (404).
    for (let i = 0; i < 50; i++) {
      const sock = await openSocket(b, ALICE, i % 2 ? '/api/ws?resume' : '/api/ws');
      try {
        const sets = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`;
        assert.equal((await getJson(a, sets, ALICE, { method: 'POST' })).status, 200, `socket ${i}`);
      } finally {
        await sock.close();
      }
    }
  });

  test('status by set: the socket’s set, the tenant owner’s live state, on either node', async () => {
    const sock = await openSocket(b, ALICE);
    try {
      const made = await getJson(b, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, ALICE, {
        method: 'POST',
      });
      const self = made.headers.get('location')!;
      const watch = await getJson(b, `${self}/presenceeventaccounts`, ALICE, {
        method: 'PUT',
        json: { eventAccounts: ['101@1001', '102@1001'] },
      });
      assert.equal(watch.status, 200);
      // Bob calls Carol: the call, and so their presence, live on a, the owner of 1001.
      const call = await getJson(a, '/api/v1/calls', BOB, {
        method: 'POST',
        json: { from: '101@1001', to: '102' },
      });
      assert.equal(call.status, 201);
      const path = `/api/v1/presencestatus/${sock.id}/subscriptionsets/${made.body.subscriptionSetId as string}`;
      const onB = await getJson(b, path, ALICE, { headers: { 'x-request-id': 'st' } });
      assert.equal(onB.status, 200);
      assert.deepEqual(
        onB.body._embedded.presenceStatus.map((p: { accountId: string; callActivity: string }) => [
          p.accountId,
          p.callActivity,
        ]),
        [
          ['101@1001', 'busy'],
          ['102@1001', 'busy'],
        ],
      );
      assert.deepEqual((await getJson(a, path, ALICE, { headers: { 'x-request-id': 'st' } })).body, onB.body);
      assert.equal((await getJson(a, path, CAROL)).status, 404, 'only the socket’s owner reads it');
      const park = `/api/v1/presencestatus/parklocationstatus/ws/${sock.id}/subscriptionsets/${made.body.subscriptionSetId as string}`;
      assert.equal((await getJson(a, park, ALICE)).status, 200);
    } finally {
      await sock.close();
    }
  });

  test('a socket that exists nowhere is the same 404 on every node', async () => {
    const path = '/api/v1/subscriptions/ws/00000000-0000-4000-8000-000000000000/subscriptionsets';
    const onA = await getJson(a, path, ALICE, { headers: { 'x-request-id': 'nf' } });
    const onB = await getJson(b, path, ALICE, { headers: { 'x-request-id': 'nf' } });
    assert.equal(onA.body.errorCode, 'WEBSOCKET_NOT_FOUND');
    assert.deepEqual(onA.body, onB.body);
  });

  test('a closed socket stops taking requests', async () => {
    const sock = await openSocket(b, ALICE);
    const sets = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`;
    assert.equal((await getJson(a, sets, ALICE)).status, 200);
    await sock.close();
    // The close reaches the server a moment after the client's.
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await getJson(a, sets, ALICE)).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(status, 404);
  });
});
