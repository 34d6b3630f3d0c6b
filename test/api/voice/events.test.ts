import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { SwitchEvent } from '../../../src/switch/types.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, BOB, CAROL, GRACE, getJson, OPERATOR, openSocket } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function createSet(auth: string, wsId: string) {
  const r = await getJson(s, `/api/v1/subscriptions/ws/${wsId}/subscriptionsets`, auth, { method: 'POST' });
  assert.equal(r.status, 200);
  return r;
}

const put = (auth: string, path: string, json?: unknown) =>
  getJson(s, path, auth, { method: 'PUT', ...(json === undefined ? {} : { json }) });

describe('event WebSocket and subscription sets', () => {
  test('identifier message, echo, subscription set create/list/get', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      assert.match(sock.id, UUID);
      sock.ws.send('hello there');
      const [echo] = await sock.waitFor(1);
      assert.equal(echo.text, 'hello there');
      const created = await createSet(ALICE, sock.id);
      assert.match(created.body.subscriptionSetId, UUID);
      assert.equal(created.body.tenantId, 1001);
      const self = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets/${created.body.subscriptionSetId}`;
      assert.equal(created.headers.get('location'), self);
      // The spec's relations, listed here rather than read from subscription-schemas.ts, so the test can fail.
      for (const rel of [
        'v1:callEventSubscriptions',
        'v1:emergencyCallAlertEventSubscriptions',
        'v1:presenceEventSubscriptions',
        'v1:presenceStatusBySubscriptionSet',
        'v1:parkLocationEventSubscriptions',
        'v1:parkLocationStatusBySubscriptionSet',
      ]) {
        assert.ok(created.body._links[rel]?.href, rel);
      }
      const list = await getJson(s, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, ALICE);
      assert.deepEqual(
        list.body._embedded.subscriptionSets.map((x: { subscriptionSetId: string }) => x.subscriptionSetId),
        [created.body.subscriptionSetId],
      );
      const one = await getJson(s, self, ALICE);
      assert.equal(one.body.subscriptionSetId, created.body.subscriptionSetId);
      // Another user cannot reach this socket's sets.
      assert.equal((await getJson(s, self, CAROL)).status, 404);
      assert.equal(
        (await getJson(s, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, BOB)).status,
        404,
      );
      // Unknown socket.
      const nf = await getJson(
        s,
        '/api/v1/subscriptions/ws/00000000-0000-4000-8000-000000000000/subscriptionsets',
        ALICE,
      );
      assert.equal(nf.body.errorCode, 'WEBSOCKET_NOT_FOUND');
    } finally {
      await sock.close();
    }
  });

  test('authority: a non-admin subscribes only to their own extension', async () => {
    const sock = await openSocket(s, BOB);
    try {
      const set = await createSet(BOB, sock.id);
      const base = set.body._links['v1:callEventSubscriptions'].href;
      const presence = set.body._links['v1:presenceEventSubscriptions'].href;
      for (const path of [base, presence]) {
        for (const other of ['102@1001', 'ALL', 'ALL_USERS@1001', 'ALL_ACD_EXTENSIONS']) {
          const r = await put(BOB, path, { eventAccounts: [other] });
          assert.equal(r.status, 403, `${path} ${other}`);
          assert.equal(r.body.errorCode, 'OWN_EXTENSION_ONLY');
        }
        assert.equal((await put(BOB, `${path}/102@1001`)).status, 403);
        const own = await put(BOB, path, { eventAccounts: ['101@1001'] });
        assert.equal(own.status, 200);
        assert.deepEqual(
          own.body._embedded.eventAccount.map((a: { accountId: string }) => a.accountId),
          ['101@1001'],
        );
      }
      // Park locations: any of the tenant's.
      const park = set.body._links['v1:parkLocationEventSubscriptions'].href;
      assert.equal((await put(BOB, park, { scope: 'set', eventAccounts: ['PL3@1001'] })).status, 200);
      // The emergency alert is for scoped telco with CallControl and tenant admins only.
      const emergency = set.body._links['v1:emergencyCallAlertEventSubscriptions'].href;
      assert.equal((await put(BOB, emergency, { allSites: true })).status, 403);
      assert.equal((await getJson(s, emergency, BOB)).status, 403);
    } finally {
      await sock.close();
    }
  });

  test('accounts must be in the set’s tenant and exist; bodies are checked', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      const set = await createSet(ALICE, sock.id);
      const calls = set.body._links['v1:callEventSubscriptions'].href;
      const cases: [unknown, number, string][] = [
        [{ eventAccounts: ['201@1002'] }, 403, 'ACCOUNT_NOT_IN_TENANT'],
        [{ eventAccounts: ['ALL_USERS@1002'] }, 403, 'ACCOUNT_NOT_IN_TENANT'],
        [{ eventAccounts: ['999@1001'] }, 400, 'UNKNOWN_ACCOUNT'],
        [{ eventAccounts: ['not an account'] }, 400, 'INVALID_ACCOUNT'],
        [{ eventAccounts: 'x' }, 400, 'INVALID_FIELD'],
        [{}, 400, 'MISSING_FIELD'],
      ];
      for (const [body, status, code] of cases) {
        const r = await put(ALICE, calls, body);
        assert.equal(r.status, status, JSON.stringify(body));
        assert.equal(r.body.errorCode, code);
      }
      const ok = await put(ALICE, calls, {
        eventAccounts: [
          '101@1001',
          'ALL_USERS@1001',
          'ALL_CALL_GROUP_EXTENSIONS',
          'ALL_AA_EXTENSIONS',
          'ALL_ACD_EXTENSIONS',
          'ALL',
        ],
        scope: null,
      });
      assert.equal(ok.status, 200);
      assert.equal(ok.body._embedded.eventAccount.length, 6);
      assert.ok(ok.body._links['v1:extensions']);
      // Element PUT adds, DELETE removes, an empty list removes all.
      const el = await put(ALICE, `${calls}/102@1001`);
      assert.equal(el.body.accountId, '102@1001');
      assert.equal((await getJson(s, `${calls}/102@1001`, ALICE, { method: 'DELETE' })).status, 200);
      const after = await getJson(s, calls, ALICE);
      assert.equal(after.body._embedded.eventAccount.length, 6);
      const empty = await put(ALICE, calls, { eventAccounts: [] });
      assert.deepEqual(empty.body._embedded.eventAccount, []);

      const park = set.body._links['v1:parkLocationEventSubscriptions'].href;
      assert.equal((await put(ALICE, park, { scope: 'everything' })).body.errorCode, 'INVALID_FIELD');
      assert.equal((await put(ALICE, park, { scope: 'set' })).body.errorCode, 'MISSING_FIELD');
      assert.equal(
        (await put(ALICE, park, { scope: 'set', eventAccounts: ['PL9@1001'] })).body.errorCode,
        'UNKNOWN_ACCOUNT',
      );
      assert.equal((await put(ALICE, park, { scope: 'set', eventAccounts: ['PL1@1002'] })).status, 403);
      assert.equal((await put(ALICE, park, { scope: 'all' })).body.scope, 'all');
      assert.equal((await put(ALICE, park, { scope: 'none' })).body.scope, 'none');

      const emergency = set.body._links['v1:emergencyCallAlertEventSubscriptions'].href;
      assert.equal((await put(ALICE, emergency, {})).status, 400);
      assert.equal((await put(ALICE, emergency, { allSites: true })).body.allSites, true);
      assert.equal((await getJson(s, emergency, ALICE)).body.allSites, true);
    } finally {
      await sock.close();
    }
  });

  test('events reach exactly the sets that asked, with the spec’s fields', async () => {
    const alice = await openSocket(s, ALICE);
    const bob = await openSocket(s, BOB);
    const grace = await openSocket(s, GRACE);
    const op = await openSocket(s, OPERATOR);
    try {
      const a = await createSet(ALICE, alice.id);
      await put(ALICE, a.body._links['v1:callEventSubscriptions'].href, {
        eventAccounts: ['101@1001', 'ALL'],
      });
      await put(ALICE, a.body._links['v1:presenceEventSubscriptions'].href, {
        eventAccounts: ['ALL_USERS@1001'],
      });
      await put(ALICE, a.body._links['v1:parkLocationEventSubscriptions'].href, { scope: 'all' });
      const b = await createSet(BOB, bob.id);
      await put(BOB, b.body._links['v1:callEventSubscriptions'].href, { eventAccounts: ['101@1001'] });
      const g = await createSet(GRACE, grace.id);
      await put(GRACE, g.body._links['v1:callEventSubscriptions'].href, { eventAccounts: ['ALL'] });
      const o = await createSet(OPERATOR, op.id);
      await put(OPERATOR, o.body._links['v1:emergencyCallAlertEventSubscriptions'].href, { allSites: true });
      await put(OPERATOR, o.body._links['v1:callEventSubscriptions'].href, {
        eventAccounts: ['ALL_ACD_EXTENSIONS'],
      });

      const at = Date.UTC(2026, 0, 5, 9, 30, 0);
      const events: SwitchEvent[] = [
        {
          type: 'call',
          name: 'end',
          tenantId: 1001,
          observed: '101@1001',
          callObserverId: '4242',
          smdrCallId: '4240',
          at,
          fields: {
            from: '101',
            to: '102',
            endingParty: '101@1001',
            endReason: 'normal',
            callDurationMs: 65_500,
          },
        },
        {
          type: 'presence',
          name: 'joinedGroup',
          tenantId: 1001,
          observed: '102@1001',
          at,
          groupJoined: '600@1001',
        },
        {
          type: 'parkLocation',
          name: 'busy',
          tenantId: 1001,
          observed: 'PL2@1001',
          at,
          parkedParty: '102@1001',
          parkedPartyName: 'Carol Chen',
        },
        {
          type: 'call',
          name: 'offer',
          tenantId: 1001,
          observed: '500@1001',
          callObserverId: '77',
          smdrCallId: '70',
          at,
          fields: { from: '+15550001111', to: '500', dialedDigits: '500', callingName: 'Caller' },
        },
        {
          type: 'emergency',
          tenantId: 1001,
          observed: '103@1001',
          callObserverId: '91',
          smdrCallId: '90',
          from: '103',
          to: '911',
          siteId: 'site-1001-hq',
          siteName: 'Acme HQ',
          at,
        },
      ];
      for (const e of events) s.runtime.bus.publish(e);

      const aFrames = await alice.waitFor(4);
      const [end, joined, parked, acdOffer] = aFrames;
      assert.deepEqual(end, {
        subscriptionSetId: a.body.subscriptionSetId,
        event: 'end',
        observedParty: '101@1001',
        timestamp: '2026-01-05T09:30:00.000+00:00',
        version: 'v1',
        callId: 4242,
        smdrCallId: '4240',
        from: '101',
        to: '102',
        endingParty: '101@1001',
        endReason: 'normal',
        callDuration: 'PT1M5.5S',
      });
      assert.deepEqual(joined, {
        subscriptionSetId: a.body.subscriptionSetId,
        event: 'joinedGroup',
        observedParty: '102@1001',
        timestamp: '2026-01-05T09:30:00.000+00:00',
        version: 'v1',
        groupJoined: '600@1001',
      });
      assert.equal(parked.event, 'busy');
      assert.equal(parked.observedParty, 'PL2@1001');
      assert.equal(parked.parkedParty, '102@1001');
      assert.equal(parked.parkedPartyName, 'Carol Chen');
      assert.equal(acdOffer.event, 'offer');
      assert.equal(acdOffer.callId, 77);

      const bFrames = await bob.waitFor(1);
      assert.equal(bFrames[0].event, 'end');
      assert.equal(bFrames[0].subscriptionSetId, b.body.subscriptionSetId);

      const oFrames = await op.waitFor(2);
      assert.equal(oFrames[0].event, 'offer');
      assert.deepEqual(oFrames[1], {
        subscriptionSetId: o.body.subscriptionSetId,
        event: 'emergencyCallAlert',
        observedParty: '103@1001',
        timestamp: '2026-01-05T09:30:00.000+00:00',
        version: 'v1',
        callId: 91,
        from: '103',
        to: '911',
        siteId: 'site-1001-hq',
        siteName: 'Acme HQ',
      });
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(alice.frames.length, 4, 'one frame per event per set, no duplicates');
      assert.equal(bob.frames.length, 1);
      assert.equal(op.frames.length, 2);
      assert.equal(grace.frames.length, 0, 'another tenant hears nothing');
    } finally {
      await Promise.all([alice.close(), bob.close(), grace.close(), op.close()]);
    }
  });

  test('closing the socket cancels its subscription sets', async () => {
    const sock = await openSocket(s, CAROL);
    const set = await createSet(CAROL, sock.id);
    await put(CAROL, set.body._links['v1:callEventSubscriptions'].href, { eventAccounts: ['102@1001'] });
    await sock.close();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await getJson(s, set.headers.get('location')!, CAROL)).status, 404);
    const again = await openSocket(s, CAROL);
    assert.notEqual(again.id, sock.id);
    s.runtime.bus.publish({
      type: 'presence',
      name: 'dndOn',
      tenantId: 1001,
      observed: '102@1001',
      at: 0,
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(again.frames.length, 0);
    await again.close();
  });
});
