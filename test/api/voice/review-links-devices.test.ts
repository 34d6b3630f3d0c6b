import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simReset, startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, BOB, CAROL, getJson, OPERATOR, openSocket, simAnswer } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());
beforeEach(() => simReset(s));

const send = (auth: string, method: string, path: string, json?: unknown) =>
  getJson(s, path, auth, json === undefined ? { method } : { method, json });

describe('review: links name what they point at', () => {
  test('the uridictionary keeps {extension} a template (only the tenant is filled)', async () => {
    const { body } = await getJson(s, '/api/v1/uridictionary', ALICE);
    for (const [rel, kind] of [
      ['v1:extension', 'extensions'],
      ['v1:user', 'users'],
      ['v1:location', 'locations'],
      ['v1:presenceStatusByExtension', 'extensions'],
    ]) {
      assert.equal(body._links[rel].templated, true, rel);
      assert.match(body._links[rel].href, new RegExp(`/tenants/1001/${kind}/\\{extension\\}$`), rel);
    }
    const op = await getJson(s, '/api/v1/uridictionary', OPERATOR);
    assert.equal(op.body._links['v1:tenant'].href, '/api/v1/tenants/1001');
  });

  test('event-account elements link to their own status; scope all lists every park location', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      const created = await send(ALICE, 'POST', `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`);
      const set = created.headers.get('location')!;
      const presence = await send(ALICE, 'PUT', `${set}/presenceeventaccounts`, {
        eventAccounts: ['102@1001', 'ALL_USERS@1001'],
      });
      assert.equal(presence.status, 200);
      const [carol, all] = presence.body._embedded.eventAccount;
      assert.equal(
        carol._links['v1:presenceStatusByExtension'].href,
        '/api/v1/presencestatus/tenants/1001/extensions/102',
      );
      const followed = await getJson(s, carol._links['v1:presenceStatusByExtension'].href, ALICE);
      assert.equal(followed.body.accountId, '102@1001');
      assert.equal(all.accountId, 'ALL_USERS@1001');

      const one = await send(ALICE, 'PUT', `${set}/parklocationeventaccounts`, {
        scope: 'set',
        eventAccounts: ['PL2@1001'],
      });
      const pl2 = one.body._embedded.eventAccount[0]._links['v1:parkLocationStatus'];
      assert.equal(pl2.templated, undefined);
      assert.equal((await getJson(s, pl2.href, ALICE)).body.accountId, 'PL2@1001');

      const everyLot = await send(ALICE, 'PUT', `${set}/parklocationeventaccounts`, { scope: 'all' });
      assert.equal(everyLot.body.scope, 'all');
      assert.deepEqual(
        everyLot.body._embedded.eventAccount.map((a: { accountId: string }) => a.accountId),
        ['PL1@1001', 'PL2@1001', 'PL3@1001', 'PL4@1001', 'PL5@1001'],
      );
      // Removing one location from "all" leaves the others.
      assert.equal((await send(ALICE, 'DELETE', `${set}/parklocationeventaccounts/PL3@1001`)).status, 200);
      const after = await getJson(s, `${set}/parklocationeventaccounts`, ALICE);
      assert.equal(after.body.scope, 'set');
      assert.deepEqual(
        after.body._embedded.eventAccount.map((a: { accountId: string }) => a.accountId),
        ['PL1@1001', 'PL2@1001', 'PL4@1001', 'PL5@1001'],
      );
    } finally {
      await sock.close();
    }
  });
});

describe('review: call requests check deviceId like makeCall', () => {
  test('answerCall and resumeHeldCall refuse a device the acting user does not have', async () => {
    const made = await send(BOB, 'POST', '/api/v1/calls', { from: '101@1001', to: '102' });
    assert.equal(made.status, 201);
    const carolLeg = (await getJson(s, '/api/v1/calls', CAROL)).body._embedded.calls[0].callId as string;
    const at = `/api/v1/calls/${carolLeg}`;
    const wrongAnswer = await send(CAROL, 'POST', at, {
      callRequest: 'answerCall',
      myPartyId: '102@1001',
      deviceId: 'ph1001-101',
    });
    assert.equal(wrongAnswer.status, 400);
    assert.equal(wrongAnswer.body.errorCode, 'DEVICE_MISMATCH');
    assert.equal((await getJson(s, at, CAROL)).body.callState, 'ringing');
    await simAnswer(s, 'ph1001-102');
    const hold = await send(CAROL, 'POST', at, { callRequest: 'holdCall', myPartyId: '102@1001' });
    assert.equal(hold.status, 200);
    // The device check of answerCall above, now for resumeHeldCall (a held call stays held).
    const wrongResume = await send(CAROL, 'POST', at, {
      callRequest: 'resumeHeldCall',
      myPartyId: '102@1001',
      deviceId: 'ph1001-101',
    });
    assert.equal(wrongResume.status, 400);
    assert.equal(wrongResume.body.errorCode, 'DEVICE_MISMATCH');
    assert.equal((await getJson(s, at, CAROL)).body.callState, 'held');
    const resume = await send(CAROL, 'POST', at, {
      callRequest: 'resumeHeldCall',
      myPartyId: '102@1001',
      deviceId: 'ph1001-102',
    });
    assert.equal(resume.status, 200);
    assert.equal((await getJson(s, at, CAROL)).body.callState, 'connected');
  });
});

describe('review: an ended call', () => {
  test('is readable, and a call request on it is a 409 state conflict', async () => {
    const made = await send(BOB, 'POST', '/api/v1/calls', { from: '101@1001', to: '102' });
    const at = `/api/v1/calls/${made.body.callId}`;
    const hung = await send(BOB, 'POST', at, { callRequest: 'hangupCall' });
    assert.equal(hung.body.callState, 'ended');
    assert.equal((await getJson(s, at, BOB)).body.callState, 'ended');
    const again = await send(BOB, 'POST', at, { callRequest: 'hangupCall' });
    assert.equal(again.status, 409);
    assert.equal(again.body.errorCode, 'CALL_ENDED');
    const hold = await send(BOB, 'POST', at, { callRequest: 'holdCall', myPartyId: '101@1001' });
    assert.equal(hold.status, 409);
  });
});

describe('review: /api/ws without an upgrade', () => {
  test('answers 426 problem+json and holds no socket slot', async () => {
    const sock = await openSocket(s, BOB);
    try {
      const plain = await getJson(s, '/api/ws', BOB);
      assert.equal(plain.status, 426);
      assert.equal(plain.body.errorCode, 'UPGRADE_REQUIRED');
      assert.match(plain.headers.get('content-type')!, /problem\+json/);
      assert.equal(plain.headers.get('upgrade'), 'websocket');
      assert.equal((await getJson(s, '/api/ws', 'nobody@1001:1')).status, 401);
    } finally {
      await sock.close();
    }
    // Still exactly one socket per client: a plain GET took no slot.
    const again = await openSocket(s, BOB);
    await again.close();
  });
});

describe('review: bodies that are "none required"', () => {
  test('an empty body with a JSON content type is accepted; a bad JSON body is still 400', async () => {
    const sock = await openSocket(s, BOB);
    try {
      const r = await s.fetch(`/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, {
        auth: BOB,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 200, await r.clone().text());
      assert.ok(((await r.json()) as { subscriptionSetId?: string }).subscriptionSetId);
      const bad = await s.fetch('/api/v1/calls', {
        auth: BOB,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"from":',
      });
      assert.equal(bad.status, 400);
      assert.equal(((await bad.json()) as { errorCode: string }).errorCode, 'INVALID_BODY');
      const poisoned = await s.fetch('/api/v1/calls', {
        auth: BOB,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"__proto__":{"x":1},"from":"101@1001","to":"102"}',
      });
      assert.equal(poisoned.status, 400);
    } finally {
      await sock.close();
    }
  });
});

describe('review: from and myPartyId name a user or location', () => {
  test('an ACD or group extension is a 400 naming the field, not a 404 of /api/v1/calls', async () => {
    for (const from of ['500@1001', '600@1001', '700@1001']) {
      const r = await send(ALICE, 'POST', '/api/v1/calls', { from, to: '101' });
      assert.equal(r.status, 400, from);
      assert.equal(r.body.errorCode, 'INVALID_FIELD');
      assert.deepEqual(r.body.parameters[0], { type: 'field', value: 'from' });
    }
    const made = await send(ALICE, 'POST', '/api/v1/calls', { from: '150@1001', to: '101' });
    assert.equal(made.status, 201);
  });
});

describe('review: emergency alert subscription of a requester without a site', () => {
  test('allSites false (own site) is refused for a scoped telco user, true is accepted', async () => {
    const sock = await openSocket(s, OPERATOR);
    try {
      const set = (
        await send(OPERATOR, 'POST', `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`)
      ).headers.get('location')!;
      const own = await send(OPERATOR, 'PUT', `${set}/alertevent/emergencycall`, { allSites: false });
      assert.equal(own.status, 400);
      assert.equal(own.body.errorCode, 'INVALID_FIELD');
      const all = await send(OPERATOR, 'PUT', `${set}/alertevent/emergencycall`, { allSites: true });
      assert.equal(all.status, 200);
      assert.equal(all.body.allSites, true);
    } finally {
      await sock.close();
    }
  });
});

describe('review: the Call resource', () => {
  test('hangupCall of an unanswered call returns every field of the spec’s Call table', async () => {
    const made = await send(BOB, 'POST', '/api/v1/calls', { from: '101@1001', to: '102' });
    const hung = await send(BOB, 'POST', `/api/v1/calls/${made.body.callId}`, { callRequest: 'hangupCall' });
    assert.equal(hung.status, 200);
    const fields = Object.keys(hung.body).filter((k) => !k.startsWith('_'));
    assert.deepEqual(fields.sort(), [
      'answerTime',
      'callId',
      'callParties',
      'callState',
      'digitsDialed',
      'from',
      'redirected',
      'smdrCallId',
      'startTime',
      'talkDuration',
      'to',
      'transferred',
    ]);
    assert.equal(hung.body.answerTime, null);
    assert.equal(typeof hung.body.callId, 'string');
    assert.equal(typeof hung.body.redirected, 'boolean');
    assert.match(hung.body.startTime, /[+-]\d\d:\d\d$/);
    assert.deepEqual(Object.keys(hung.body.callParties[0]).sort(), ['PartyId', 'PartyName']);
  });
});
