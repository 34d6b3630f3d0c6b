import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { SimDevice } from '../../../src/api/sim/sim-schemas.js';
import { simReset, startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, BOB, CAROL, getJson, LOBBY, OPERATOR, openSocket, simAnswer } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());
beforeEach(() => simReset(s));

const post = (auth: string, path: string, json: unknown) => getJson(s, path, auth, { method: 'POST', json });

async function bobCallsCarol() {
  const made = await post(BOB, '/api/v1/calls', { from: '101@1001', to: '102' });
  assert.equal(made.status, 201);
  const carolLeg = (await getJson(s, '/api/v1/calls', CAROL)).body._embedded.calls[0].callId as string;
  return { bobLeg: made.body.callId as string, carolLeg };
}

describe('calls', () => {
  test('POST /api/v1/calls field rules', async () => {
    const cases: [string, unknown, number, string][] = [
      [BOB, { to: '102' }, 400, 'MISSING_FIELD'],
      [BOB, { from: '101@1001' }, 400, 'MISSING_FIELD'],
      [BOB, { from: 'bob', to: '102' }, 400, 'INVALID_FIELD'],
      [BOB, { request: 'dial', from: '101@1001', to: '102' }, 400, 'INVALID_FIELD'],
      [BOB, { from: '102@1001', to: '103' }, 403, 'NOT_YOUR_ACCOUNT'],
      [BOB, { from: '101@1001', to: '102', deviceIdType: 'phone' }, 400, 'INVALID_FIELD'],
      [BOB, { from: '101@1001', to: '102', deviceIdType: 'external' }, 400, 'DEVICE_MISMATCH'],
      [BOB, { from: '101@1001', to: '102', deviceId: 'ph1001-102' }, 400, 'DEVICE_MISMATCH'],
      [BOB, { from: '101@1001', to: '102', playPrompt: 'maybe' }, 400, 'INVALID_FIELD'],
      [BOB, { request: 'retrieveParkedCall', from: '101@1001' }, 400, 'MISSING_FIELD'],
      [BOB, { request: 'retrieveParkedCall', from: '101@1001', featureData: 'x' }, 400, 'INVALID_FIELD'],
      [
        BOB,
        {
          request: 'retrieveParkedCall',
          from: '101@1001',
          featureData: '2',
          deviceIdType: 'external',
          deviceId: '5550100',
        },
        400,
        'DEVICE_MISMATCH',
      ],
      [ALICE, { from: '999@1001', to: '102' }, 400, 'UNKNOWN_ACCOUNT'],
    ];
    for (const [auth, body, status, code] of cases) {
      const r = await post(auth, '/api/v1/calls', body);
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.errorCode, code, JSON.stringify(body));
    }
    // A body that is not JSON (415); navigation.test.ts sends JSON with a verb the path lacks (405).
    const notJson = await s.fetch('/api/v1/calls', {
      auth: BOB,
      method: 'POST',
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(notJson.status, 415);
  });

  test('call requests: field rules, own calls only, state conflicts', async () => {
    const { bobLeg, carolLeg } = await bobCallsCarol();
    const at = (id: string) => `/api/v1/calls/${id}`;
    const cases: [string, string, unknown, number, string][] = [
      [BOB, bobLeg, {}, 400, 'MISSING_FIELD'],
      [BOB, bobLeg, { callRequest: 'dance', myPartyId: '101@1001' }, 400, 'INVALID_FIELD'],
      [BOB, bobLeg, { callRequest: 'holdCall' }, 400, 'MISSING_FIELD'],
      [BOB, bobLeg, { callRequest: 'transfer', myPartyId: '101@1001' }, 400, 'MISSING_FIELD'],
      [
        BOB,
        bobLeg,
        { callRequest: 'transfer', myPartyId: '101@1001', otherCallId: bobLeg },
        400,
        'INVALID_FIELD',
      ],
      [
        BOB,
        bobLeg,
        { callRequest: 'parkCall', myPartyId: '101@1001', featureData: 'lot' },
        400,
        'INVALID_FIELD',
      ],
      [BOB, carolLeg, { callRequest: 'hangupCall' }, 404, 'CALL_NOT_FOUND'],
      [BOB, '12345', { callRequest: 'hangupCall' }, 404, 'CALL_NOT_FOUND'],
      [CAROL, carolLeg, { callRequest: 'holdCall', myPartyId: '101@1001' }, 403, 'NOT_YOUR_ACCOUNT'],
      [BOB, bobLeg, { callRequest: 'answerCall', myPartyId: '101@1001' }, 409, ''],
    ];
    for (const [auth, id, body, status, code] of cases) {
      const r = await post(auth, at(id), body);
      assert.equal(r.status, status, JSON.stringify(body));
      if (code) assert.equal(r.body.errorCode, code, JSON.stringify(body));
      assert.match(r.headers.get('content-type')!, /problem\+json/);
    }
    // Carol answers through the API; the answer is an empty 200.
    const answered = await s.fetch(at(carolLeg), {
      auth: CAROL,
      method: 'POST',
      json: { callRequest: 'answerCall', myPartyId: '102@1001' },
    });
    assert.equal(answered.status, 200);
    assert.equal(await answered.text(), '');
    assert.equal((await getJson(s, at(bobLeg), BOB)).body.callState, 'connected');
    // The tenant admin acts on anyone's call of the tenant; the scoped telco with CallControl too.
    assert.equal((await getJson(s, at(bobLeg), ALICE)).status, 200);
    assert.equal(
      (await post(OPERATOR, at(bobLeg), { callRequest: 'holdCall', myPartyId: '101@1001' })).status,
      200,
    );
    assert.equal((await getJson(s, at(carolLeg), OPERATOR)).body.callState, 'remoteHeld');
    const hung = await post(ALICE, at(carolLeg), { callRequest: 'hangupCall' });
    assert.equal(hung.status, 200);
    assert.equal(hung.body.callId, carolLeg);
    assert.equal(hung.body.callState, 'ended');
    assert.match(hung.body.talkDuration, /^PT/);
    assert.deepEqual((await getJson(s, '/api/v1/calls', BOB)).body._embedded.calls, []);
  });

  test('the active-call list holds every live leg, ringing ones included', async () => {
    const { bobLeg, carolLeg } = await bobCallsCarol();
    const bob = await getJson(s, '/api/v1/calls', BOB);
    assert.deepEqual(
      bob.body._embedded.calls.map((c: { callId: string }) => c.callId),
      [bobLeg],
    );
    assert.deepEqual(bob.body._links['v1options:deviceIdType'], { href: '/api/v1/enums/deviceidtype' });
    const ringing = await getJson(s, `/api/v1/calls/${carolLeg}`, CAROL);
    assert.equal(ringing.body.callState, 'ringing');
    const op = await getJson(s, '/api/v1/calls', OPERATOR);
    assert.deepEqual(
      op.body._embedded.calls.map((c: { callId: string }) => c.callId).sort(),
      [bobLeg, carolLeg].sort(),
    );
    assert.equal((await getJson(s, '/api/v1/calls', 'admin:admin')).status, 403);
  });
});

describe('status resources and presence events', () => {
  test('presence by extension, by tenant, park locations, by subscription set', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      const set = await post(ALICE, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, undefined);
      await getJson(s, set.body._links['v1:presenceEventSubscriptions'].href, ALICE, {
        method: 'PUT',
        json: { eventAccounts: ['102@1001', 'ALL_CALL_GROUP_EXTENSIONS'] },
      });
      await getJson(s, set.body._links['v1:parkLocationEventSubscriptions'].href, ALICE, {
        method: 'PUT',
        json: { scope: 'set', eventAccounts: ['PL1@1001', 'PL4@1001'] },
      });
      const idle = await getJson(s, '/api/v1/presencestatus/tenants/1001/extensions/102', ALICE);
      assert.deepEqual(
        { ...idle.body, _links: undefined },
        {
          accountId: '102@1001',
          callActivity: 'idle',
          reachability: 'available',
          acd: 'signedInAcd',
          dnd: 'dndOff',
          groups: ['600@1001'],
          _links: undefined,
        },
      );
      await bobCallsCarol();
      const presenceFrames = await sock.waitFor(1);
      assert.equal(presenceFrames[0].event, 'busy');
      assert.equal(presenceFrames[0].observedParty, '102@1001');
      assert.equal(
        (await getJson(s, '/api/v1/presencestatus/tenants/1001/extensions/102', CAROL)).body.callActivity,
        'busy',
      );
      assert.equal((await getJson(s, '/api/v1/presencestatus/tenants/1001/extensions/102', BOB)).status, 403);
      const tenant = await getJson(
        s,
        '/api/v1/presencestatus/tenants/1001/extensions?filter=eq(callActivity,busy)',
        ALICE,
      );
      assert.deepEqual(
        tenant.body._embedded.presenceStatus.map((p: { accountId: string }) => p.accountId),
        ['101@1001', '102@1001'],
      );
      assert.equal((await getJson(s, '/api/v1/presencestatus/tenants/1001/extensions', BOB)).status, 403);
      const bySet = await getJson(s, set.body._links['v1:presenceStatusBySubscriptionSet'].href, ALICE);
      // Presence describes users and locations: the group token adds none.
      assert.deepEqual(
        bySet.body._embedded.presenceStatus.map((p: { accountId: string }) => p.accountId),
        ['102@1001'],
      );
      const parks = await getJson(s, '/api/v1/presencestatus/tenants/1001/parklocations', LOBBY);
      assert.deepEqual(
        parks.body._embedded.parkLocationStatus.map(
          (p: { accountId: string; state: string }) => `${p.accountId}:${p.state}`,
        ),
        ['PL1@1001:idle', 'PL2@1001:idle', 'PL3@1001:idle', 'PL4@1001:idle', 'PL5@1001:idle'],
      );
      const parkBySet = await getJson(
        s,
        set.body._links['v1:parkLocationStatusBySubscriptionSet'].href,
        ALICE,
      );
      assert.deepEqual(
        parkBySet.body._embedded.parkLocationStatus.map((p: { accountId: string }) => p.accountId),
        ['PL1@1001', 'PL4@1001'],
      );
      assert.equal(parkBySet.body.scope, 'set');
      assert.equal(
        (await getJson(s, '/api/v1/presencestatus/parklocationstatus/PL9@1001', ALICE)).status,
        404,
      );
      assert.equal(
        (await getJson(s, '/api/v1/presencestatus/parklocationstatus/nowhere', ALICE)).status,
        400,
      );
    } finally {
      await sock.close();
    }
  });

  test('park-location events from a real park', async () => {
    const sock = await openSocket(s, BOB);
    try {
      const set = await post(BOB, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, undefined);
      await getJson(s, set.body._links['v1:parkLocationEventSubscriptions'].href, BOB, {
        method: 'PUT',
        json: { scope: 'all' },
      });
      const { bobLeg } = await bobCallsCarol();
      await simAnswer(s, 'ph1001-102');
      assert.equal(
        (
          await post(BOB, `/api/v1/calls/${bobLeg}`, {
            callRequest: 'parkCall',
            myPartyId: '101@1001',
            featureData: 'PL3',
          })
        ).status,
        200,
      );
      const [busy] = await sock.waitFor(1);
      const { timestamp, ...rest } = busy;
      assert.match(String(timestamp), /\+00:00$/);
      assert.deepEqual(rest, {
        subscriptionSetId: set.body.subscriptionSetId,
        event: 'busy',
        observedParty: 'PL3@1001',
        version: 'v1',
        parkedParty: '102@1001',
        parkedPartyName: 'Carol Chen',
      });
    } finally {
      await sock.close();
    }
  });
});

describe('send message', () => {
  test('alert users and sites reach their phones', async () => {
    const users = await post(ALICE, '/api/v1/sendmessage/tenants/1001/alertusers', {
      accountIds: ['101@1001', '150@1001'],
      message: 'Fire drill at 3',
      priority: 'high',
    });
    assert.equal(users.status, 200);
    assert.deepEqual(users.body.deviceIds, ['ph1001-101', 'ph1001-150']);
    const sites = await post(OPERATOR, '/api/v1/sendmessage/tenants/1001/alertsites', {
      siteIds: ['site-1001-hq'],
      message: 'All hands',
    });
    assert.equal(sites.body.deviceIds.length, 7);
    // A phone by id (its tenant's owner answers), not GET /sim/v1/state (the node asked).
    const phone = async (id: string) =>
      (await getJson(s, `/sim/v1/devices/${id}`, 'admin:admin')).body as SimDevice;
    const bob = await phone('ph1001-101');
    assert.deepEqual(
      bob.messages.map((m) => [m.text, m.priority]),
      [
        ['Fire drill at 3', 'high'],
        ['All hands', 'normal'],
      ],
    );
    assert.equal((await phone('ph1001-102')).messages.length, 1);
    for (const [auth, body, status] of [
      [BOB, { accountIds: ['101@1001'], message: 'x' }, 403],
      [ALICE, { accountIds: ['101@1001'] }, 400],
      [ALICE, { accountIds: [], message: 'x' }, 400],
      [ALICE, { accountIds: ['201@1002'], message: 'x' }, 400],
      [ALICE, { accountIds: ['101@1001'], message: 'x', priority: 'urgent!' }, 400],
    ] as const) {
      assert.equal(
        (await post(auth, '/api/v1/sendmessage/tenants/1001/alertusers', body)).status,
        status,
        JSON.stringify(body),
      );
    }
    assert.equal(
      (
        await post(ALICE, '/api/v1/sendmessage/tenants/1001/alertsites', {
          siteIds: ['site-1002-hq'],
          message: 'x',
        })
      ).status,
      400,
    );
  });
});

describe('emergency call alert from a real emergency call', () => {
  test('dialing 911 alerts sets subscribed with allSites, and the caller’s site', async () => {
    const op = await openSocket(s, OPERATOR);
    const alice = await openSocket(s, ALICE);
    const bob = await openSocket(s, BOB);
    try {
      for (const [auth, sock, allSites] of [
        [OPERATOR, op, true],
        [ALICE, alice, false],
      ] as const) {
        const set = await post(auth, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, undefined);
        const r = await getJson(s, set.body._links['v1:emergencyCallAlertEventSubscriptions'].href, auth, {
          method: 'PUT',
          json: { allSites },
        });
        assert.equal(r.status, 200);
      }
      await post(BOB, `/api/v1/subscriptions/ws/${bob.id}/subscriptionsets`, undefined);
      const dial = await post('admin:admin', '/sim/v1/devices/ph1001-103/dial', { to: '911' });
      assert.ok(dial.status < 300, JSON.stringify(dial.body));
      for (const sock of [op, alice]) {
        const [alert] = await sock.waitFor(1);
        const { timestamp, subscriptionSetId, callId, ...rest } = alert;
        assert.equal(typeof callId, 'number');
        assert.match(String(timestamp), /\+00:00$/);
        assert.deepEqual(rest, {
          event: 'emergencyCallAlert',
          observedParty: '103@1001',
          version: 'v1',
          from: '103',
          to: '911',
          siteId: 'site-1001-hq',
          siteName: 'Acme HQ',
        });
      }
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(bob.frames.length, 0);
    } finally {
      await Promise.all([op.close(), alice.close(), bob.close()]);
    }
  });
});
