/**
 * The call reads kept as text (route-core/read-cache.ts; call-resources.ts `CALL_LIST`,
 * `ONE_CALL`): each state is read twice, so the second answer is the kept one, then read again
 * after the switch changed it: a call made, answered, ended; a reset. With `expand` or `filter`
 * the list shows talkDuration, which moves with the clock while a call is answered: then, as a
 * call read is, it is made afresh.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simReset, startTestServer, type TestServer } from '../../helpers/server.js';
import {
  ALICE,
  BOB,
  CAROL,
  GRACE,
  getJson,
  HANK,
  OPERATOR,
  simAdvance,
  simAnswer,
  simDevice,
  readTwice,
} from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());
beforeEach(() => simReset(s));

const LIST = '/api/v1/calls';
const EXPANDED = '/api/v1/calls?expand=item';
/** Without `expand`, a filter on talkDuration: the items it lets through move with the clock. */
const TALKED_5S = '/api/v1/calls?filter=eq(talkDuration,PT5S)';

const twice = (path: string, auth: string) => readTwice(s, path, auth);

type CallList = { _embedded: { calls: Record<string, unknown>[] } };
const calls = (body: CallList) => body._embedded.calls;
const ids = (body: CallList) => calls(body).map((c) => c.callId);

describe('kept call reads follow the switch', () => {
  test('a call made, answered and ended shows in the list and in the call; a reset forgets it', async () => {
    assert.deepEqual(ids(await twice(LIST, BOB)), []);
    assert.deepEqual(ids(await twice(EXPANDED, CAROL)), []);
    assert.deepEqual(ids(await twice(LIST, OPERATOR)), []);

    const made = await getJson(s, LIST, BOB, { method: 'POST', json: { from: '101@1001', to: '102' } });
    assert.equal(made.status, 201);
    const bobLeg = made.body.callId as string;
    assert.deepEqual(ids(await twice(LIST, BOB)), [bobLeg]);
    const [carolRinging] = calls(await twice(EXPANDED, CAROL));
    assert.equal(carolRinging.callState, 'ringing');
    assert.equal(carolRinging.talkDuration, 'PT0S');
    const carolLeg = carolRinging.callId as string;
    assert.equal(calls(await twice(LIST, OPERATOR)).length, 2, 'the scoped operator sees the whole tenant');
    assert.deepEqual(ids(await twice(LIST, ALICE)), [], 'the tenant admin lists her own extension’s');
    assert.equal((await twice(`${LIST}/${bobLeg}`, BOB)).answerTime, null);

    await simAnswer(s, 'ph1001-102');
    assert.deepEqual(ids(await twice(LIST, BOB)), [bobLeg], 'the list alone has no clock: kept');
    const answered = calls((await getJson(s, EXPANDED, CAROL)).body)[0];
    assert.equal(answered.callState, 'connected');
    assert.notEqual(answered.answerTime, null);
    const bobAnswered = (await getJson(s, `${LIST}/${bobLeg}`, BOB)).body;
    assert.equal(bobAnswered.callState, 'connected');
    assert.equal(bobAnswered.talkDuration, 'PT0S');
    assert.deepEqual(ids((await getJson(s, TALKED_5S, CAROL)).body), []);

    // Nothing happens but the clock: the talk goes on, and what shows it moves with it.
    await simAdvance(s, 5_000);
    const later = calls((await getJson(s, EXPANDED, CAROL)).body)[0];
    assert.notEqual(later.talkDuration, answered.talkDuration, 'talkDuration moved with the clock');
    assert.equal(later.talkDuration, 'PT5S');
    assert.deepEqual(ids((await getJson(s, TALKED_5S, CAROL)).body), [carolLeg], 'a filter on it too');
    const bobLater = (await getJson(s, `${LIST}/${bobLeg}`, BOB)).body;
    assert.notEqual(bobLater.talkDuration, bobAnswered.talkDuration, 'and in the call read');
    await simAdvance(s, 5_000);
    assert.notEqual((await getJson(s, `${LIST}/${bobLeg}`, BOB)).body.talkDuration, bobLater.talkDuration);
    assert.notEqual(calls((await getJson(s, EXPANDED, CAROL)).body)[0].talkDuration, later.talkDuration);
    assert.deepEqual(ids((await getJson(s, TALKED_5S, CAROL)).body), []);

    await simDevice(s, 'ph1001-102', 'hangup');
    assert.deepEqual(ids(await twice(LIST, BOB)), []);
    assert.deepEqual(ids(await twice(EXPANDED, CAROL)), []);
    const ended = await twice(`${LIST}/${carolLeg}`, CAROL);
    assert.equal(ended.callState, 'ended');
    // An ended call no longer moves: kept, and the same after the clock moved.
    await simAdvance(s, 5_000);
    assert.deepEqual((await getJson(s, `${LIST}/${carolLeg}`, CAROL)).body, ended);

    await simReset(s);
    assert.equal((await getJson(s, `${LIST}/${carolLeg}`, CAROL)).status, 404, 'a reset forgets the call');
    assert.deepEqual(ids(await getJson(s, LIST, BOB).then((r) => r.body)), []);
  });

  test('callers never share a kept answer: own legs, own tenant', async () => {
    const made = await getJson(s, LIST, BOB, { method: 'POST', json: { from: '101@1001', to: '102' } });
    assert.equal(made.status, 201);
    const bobLeg = made.body.callId as string;
    const bobs = await twice(EXPANDED, BOB);
    const carols = await twice(EXPANDED, CAROL);
    assert.notDeepEqual(ids(carols), ids(bobs), 'each user lists their own leg');
    assert.equal(calls(await twice(EXPANDED, OPERATOR)).length, 2, 'the scoped operator: the tenant');
    assert.deepEqual(ids(await twice(EXPANDED, GRACE)), [], 'another tenant lists none of it');
    assert.deepEqual(ids(await twice(EXPANDED, HANK)), []);

    assert.equal((await twice(`${LIST}/${bobLeg}`, BOB)).callId, bobLeg);
    assert.equal((await getJson(s, `${LIST}/${bobLeg}`, CAROL)).status, 404, 'another user’s leg');
    assert.equal((await getJson(s, `${LIST}/${bobLeg}`, GRACE)).status, 404, 'another tenant’s call');
    assert.equal((await getJson(s, `${LIST}/${bobLeg}`, HANK)).status, 404);
    assert.equal((await twice(`${LIST}/${bobLeg}`, ALICE)).callId, bobLeg, 'the tenant admin reads it');
  });
});
