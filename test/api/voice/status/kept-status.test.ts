/**
 * Presence and park-location reads kept as text (route-core/read-cache.ts, `cached: 'live'`):
 * each state is read twice, so the second answer is the kept one, then read again after the
 * switch changed it: a call, an answer, a park, a hang-up, a phone logging out, a reset.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simReset, startTestServer, type TestServer } from '../../../helpers/server.js';
import {
  ALICE,
  BOB,
  CAROL,
  GRACE,
  getJson,
  OPERATOR,
  readTwice,
  simAnswer,
  simDevice,
} from '../voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());
beforeEach(() => simReset(s));

const CAROL_PRESENCE = '/api/v1/presencestatus/tenants/1001/extensions/102';
const PRESENCE_LIST = '/api/v1/presencestatus/tenants/1001/extensions?expand=item';
const PL3 = '/api/v1/presencestatus/parklocationstatus/PL3@1001';
const PARK_LIST = '/api/v1/presencestatus/tenants/1001/parklocations?expand=item';

const twice = (path: string, auth: string) => readTwice(s, path, auth);

const carolInList = (body: { _embedded: { presenceStatus: { accountId: string }[] } }) =>
  body._embedded.presenceStatus.find((p) => p.accountId === '102@1001') as Record<string, unknown>;
const pl3InList = (body: { _embedded: { parkLocationStatus: { accountId: string }[] } }) =>
  body._embedded.parkLocationStatus.find((p) => p.accountId === 'PL3@1001') as Record<string, unknown>;
const post = (auth: string, path: string, json: unknown) => getJson(s, path, auth, { method: 'POST', json });

describe('kept presence and park-location reads follow the switch', () => {
  test('a call makes the callee busy, a park fills the location, the end frees both', async () => {
    assert.equal((await twice(CAROL_PRESENCE, ALICE)).callActivity, 'idle');
    assert.equal((await twice(CAROL_PRESENCE, CAROL)).callActivity, 'idle');
    assert.equal(carolInList(await twice(PRESENCE_LIST, ALICE)).callActivity, 'idle');
    assert.equal((await twice(PL3, BOB)).state, 'idle');
    assert.equal(pl3InList(await twice(PARK_LIST, ALICE)).state, 'idle');

    const made = await post(BOB, '/api/v1/calls', { from: '101@1001', to: '102' });
    assert.equal(made.status, 201);
    assert.equal((await getJson(s, CAROL_PRESENCE, ALICE)).body.callActivity, 'busy');
    assert.equal((await getJson(s, CAROL_PRESENCE, CAROL)).body.callActivity, 'busy');
    assert.equal(carolInList((await getJson(s, PRESENCE_LIST, ALICE)).body).callActivity, 'busy');

    await simAnswer(s, 'ph1001-102');
    const park = await post(BOB, `/api/v1/calls/${made.body.callId}`, {
      callRequest: 'parkCall',
      myPartyId: '101@1001',
      featureData: 'PL3',
    });
    assert.equal(park.status, 200);
    const parked = await twice(PL3, BOB);
    assert.equal(parked.state, 'busy');
    assert.equal(parked.parkedParty, '102@1001');
    assert.equal(pl3InList((await getJson(s, PARK_LIST, ALICE)).body).state, 'busy');
    // The operator (a telco user scoped to the tenant) reads the same, from whichever node.
    for (let i = 0; i < 4; i++) assert.equal((await getJson(s, PL3, OPERATOR)).body.state, 'busy');

    await simDevice(s, 'ph1001-102', 'hangup');
    assert.equal((await getJson(s, PL3, BOB)).body.state, 'idle');
    assert.equal(pl3InList((await getJson(s, PARK_LIST, ALICE)).body).state, 'idle');
    assert.equal((await getJson(s, CAROL_PRESENCE, ALICE)).body.callActivity, 'idle');
  });

  test('a phone logging out, DND and a reset show at once; callers never share an answer', async () => {
    assert.equal((await twice(CAROL_PRESENCE, ALICE)).reachability, 'available');
    await simDevice(s, 'ph1001-102', 'unregister');
    assert.equal((await getJson(s, CAROL_PRESENCE, ALICE)).body.reachability, 'unavailable');
    assert.equal(carolInList((await getJson(s, PRESENCE_LIST, ALICE)).body).reachability, 'unavailable');

    const dnd = await getJson(s, '/api/v1/tenants/1001/users/102', ALICE, {
      method: 'PUT',
      json: { dnd: true },
    });
    assert.equal(dnd.status, 200, JSON.stringify(dnd.body));
    assert.equal((await twice(CAROL_PRESENCE, ALICE)).dnd, 'dndOn');

    await simReset(s);
    const fresh = await getJson(s, CAROL_PRESENCE, ALICE);
    assert.equal(fresh.body.reachability, 'available');
    assert.equal(fresh.body.dnd, 'dndOff');

    // The tenant admin's kept answer is never another caller's.
    await twice(CAROL_PRESENCE, ALICE);
    const bob = await getJson(s, CAROL_PRESENCE, BOB);
    assert.equal(bob.status, 403);
    assert.equal(bob.body.errorCode, 'OWN_EXTENSION_ONLY');
    assert.equal((await getJson(s, CAROL_PRESENCE, GRACE)).status, 403);
    await twice(PRESENCE_LIST, ALICE);
    assert.equal((await getJson(s, PRESENCE_LIST, BOB)).status, 403);
  });
});
