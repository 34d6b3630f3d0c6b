/**
 * The voice call events the other suites produce only in switch unit tests: `forward`,
 * `callError`, `retrieved`, and `sipCallId` on the setup events, from real calls over /api/ws.
 * The contract checker validates every frame against the voice-events document as well.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, BOB, CAROL, type EventSocket, getJson, openSocket, simAnswer } from './voice-helpers.js';

type Frame = Record<string, unknown>;

const phone = (ext: string) => DEMO.deviceId(1001, ext);

let s: TestServer;
let sock: EventSocket;
before(async () => {
  s = await startTestServer();
  sock = await openSocket(s, ALICE);
  const set = await getJson(s, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, ALICE, {
    method: 'POST',
  });
  assert.equal(set.status, 200);
  const calls = await getJson(s, set.body._links['v1:callEventSubscriptions'].href, ALICE, {
    method: 'PUT',
    json: { eventAccounts: ['100@1001', '101@1001', '102@1001', '104@1001', '700@1001'] },
  });
  assert.equal(calls.status, 200);
});
after(async () => {
  await sock.close();
  await s.stop();
});

/** The first frame from index `from` on that matches (real time, bounded). */
async function frame(from: number, match: (f: Frame) => boolean, what: string): Promise<Frame> {
  for (let i = 0; i < 200; i++) {
    const found = sock.frames.slice(from).find(match);
    if (found) return found;
    await sleep(10);
  }
  throw new Error(`no ${what} frame in ${JSON.stringify(sock.frames.slice(from))}`);
}

const is = (event: string, observedParty: string) => (f: Frame) =>
  f.event === event && f.observedParty === observedParty;

/** The fields that vary per run or repeat the common part, left out for exact comparison. */
function fields(f: Frame): Frame {
  const { subscriptionSetId, timestamp, version, event, observedParty, callId, smdrCallId, ...rest } = f;
  assert.equal(typeof subscriptionSetId, 'string');
  assert.equal(typeof timestamp, 'string');
  assert.equal(version, 'v1');
  assert.equal(typeof event, 'string');
  assert.equal(typeof observedParty, 'string');
  assert.equal(typeof callId, 'number');
  assert.match(String(smdrCallId), /^[0-9]+$/);
  return rest;
}

async function makeCall(auth: string, from: string, to: string) {
  const r = await getJson(s, '/api/v1/calls', auth, { method: 'POST', json: { from, to } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { callId: Number(r.body.callId), smdrCallId: String(r.body.smdrCallId) };
}

async function callRequest(auth: string, callId: number, body: Record<string, unknown>) {
  const r = await getJson(s, `/api/v1/calls/${callId}`, auth, { method: 'POST', json: body });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function hangUp(auth: string, callId: number) {
  await callRequest(auth, callId, { callRequest: 'hangupCall' });
}

describe('call events over the socket from real calls', () => {
  test('forward: a deflected call goes to voicemail, told to the deflecting party and the caller', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '102');
    const offer = await frame(start, is('offer', '102@1001'), 'offer to 102');
    const carolLeg = offer.callId as number;
    await callRequest(CAROL, carolLeg, { callRequest: 'deflectCall', myPartyId: '102@1001' });

    const forwarded = { forwardingParty: '102@1001', forwardTarget: 'VM@1001' };
    const toCarol = await frame(start, is('forward', '102@1001'), 'forward to 102');
    assert.equal(toCarol.callId, carolLeg);
    assert.equal(toCarol.smdrCallId, bob.smdrCallId);
    assert.deepEqual(fields(toCarol), forwarded);
    const toBob = await frame(start, is('forward', '101@1001'), 'forward to 101');
    assert.equal(toBob.callId, bob.callId);
    assert.deepEqual(fields(toBob), forwarded);
    const carolEnd = await frame(start, is('end', '102@1001'), 'end of 102');
    assert.equal(carolEnd.endReason, 'forwarded');
    const voicemail = await frame(start, is('answer', '101@1001'), 'voicemail answers 101');
    assert.deepEqual(fields(voicemail), { answeringParty: 'VM@1001', answeringDeviceId: 'voicemail' });
    await hangUp(BOB, bob.callId);
    await frame(start, is('end', '101@1001'), 'end of 101');
  });

  test('forward: an unanswered call is forwarded after the ring time-out', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '102');
    await frame(start, is('ringing', '102@1001'), 'ringing at 102');
    const clock = await s.fetch('/sim/v1/clock/advance', {
      method: 'POST',
      auth: 'admin:admin',
      json: { ms: 20_000 },
    });
    assert.equal(clock.status, 200);
    const toBob = await frame(start, is('forward', '101@1001'), 'forward to 101');
    assert.deepEqual(fields(toBob), { forwardingParty: '102@1001', forwardTarget: 'VM@1001' });
    assert.equal((await frame(start, is('end', '102@1001'), 'end of 102')).endReason, 'forwarded');
    await hangUp(BOB, bob.callId);
    await frame(start, is('end', '101@1001'), 'end of 101');
  });

  test('forward: an auto attendant sends the caller to the queue the menu picked', async () => {
    const start = sock.frames.length;
    const sim = (path: string, json: unknown = {}) =>
      getJson(s, `/sim/v1/${path}`, 'admin:admin', { method: 'POST', json });
    const placed = await sim('pstn/calls', { from: '+15550003001', to: '+15555550100' });
    assert.equal(placed.status, 201, JSON.stringify(placed.body));
    const pstnCallId = String(placed.body.pstnCallId);
    const menu = await frame(start, is('answer', '700@1001'), 'the attendant answers');
    assert.deepEqual(fields(menu), { answeringParty: '700@1001', answeringDeviceId: 'autoAttendant' });
    assert.equal((await sim(`pstn/calls/${pstnCallId}/digits`, { digits: '2' })).status, 204);
    const forward = await frame(start, is('forward', '700@1001'), 'forward from 700');
    assert.equal(forward.callId, menu.callId);
    assert.deepEqual(fields(forward), { forwardingParty: '700@1001', forwardTarget: '501@1001' });
    assert.equal((await frame(start, is('end', '700@1001'), 'end of 700')).endReason, 'forwarded');
    assert.equal((await sim(`pstn/calls/${pstnCallId}/hangup`)).status, 204);
  });

  test('callError: dialing an unknown number, then the caller’s end', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '123');
    const error = await frame(start, is('callError', '101@1001'), 'callError');
    assert.equal(error.callId, bob.callId);
    assert.equal(error.smdrCallId, bob.smdrCallId);
    assert.deepEqual(fields(error), { error: 'Unknown number' });
    const end = await frame(start, is('end', '101@1001'), 'end of 101');
    assert.equal(end.callId, bob.callId);
    assert.equal(end.endingParty, 'system');
    assert.equal(end.endReason, 'callError');
    assert.equal(end.to, '123');
    const events = sock.frames
      .slice(start)
      .filter((f) => f.callId === bob.callId)
      .map((f) => f.event);
    assert.deepEqual(events, ['dial', 'callError', 'end']);
  });

  test('callError: a busy outside number', async () => {
    const busy = await s.fetch('/sim/v1/pstn/numbers/%2B15550007001', {
      method: 'PUT',
      auth: 'admin:admin',
      json: { answer: 'auto', busy: true },
    });
    assert.equal(busy.status, 200, await busy.text());
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '+15550007001');
    const error = await frame(start, is('callError', '101@1001'), 'callError');
    assert.equal(error.callId, bob.callId);
    assert.deepEqual(fields(error), { error: 'Busy' });
    assert.equal((await frame(start, is('end', '101@1001'), 'end of 101')).endReason, 'busy');
  });

  test('retrieved: the parked party hears who took the call from the park location', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '102');
    await frame(start, is('ringing', '102@1001'), 'ringing at 102');
    await simAnswer(s, phone('102'));
    const carolAnswer = await frame(start, is('answer', '102@1001'), 'answer at 102');
    const carolLeg = carolAnswer.callId as number;
    await callRequest(BOB, bob.callId, { callRequest: 'parkCall', myPartyId: '101@1001', featureData: '3' });
    await frame(start, is('park', '102@1001'), 'park told to 102');

    const r = await getJson(s, '/api/v1/calls', ALICE, {
      method: 'POST',
      json: { request: 'retrieveParkedCall', from: '100@1001', featureData: '3' },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const aliceLeg = Number(r.body.callId);
    const retrieved = await frame(start, is('retrieved', '102@1001'), 'retrieved to 102');
    assert.equal(retrieved.callId, carolLeg);
    assert.equal(retrieved.smdrCallId, bob.smdrCallId);
    const where = {
      retrievingPartyName: 'Alice Adams',
      retrievingPartyID: '100@1001',
      parkLocationID: 'PL3@1001',
      parkedPartyNumber: '102',
      parkedPartyName: 'Carol Chen',
    };
    assert.deepEqual(fields(retrieved), { ...where, observedPartyID: '102@1001' });
    const retrieve = await frame(start, is('retrieve', '100@1001'), 'retrieve to 100');
    assert.equal(retrieve.callId, aliceLeg);
    assert.deepEqual(fields(retrieve), { ...where, observedPartyID: '100@1001' });
    await hangUp(ALICE, aliceLeg);
    await frame(start, is('end', '102@1001'), 'end of 102');
  });

  test('sipCallId: a call to a basic SIP terminal carries one on its setup events only', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '104');
    const offer = await frame(start, is('offer', '104@1001'), 'offer to 104');
    const sipCallId = offer.sipCallId;
    assert.equal(typeof sipCallId, 'string');
    assert.ok(String(sipCallId).length > 0);
    assert.deepEqual(fields(offer), {
      from: '101',
      to: '104',
      dialedDigits: '104',
      callingName: 'Bob Brown',
      sipCallId,
    });
    const ringing = await frame(start, is('ringing', '104@1001'), 'ringing at 104');
    assert.deepEqual(fields(ringing), { ringingDeviceId: phone('104'), sipCallId });
    const ringback = await frame(start, is('ringback', '101@1001'), 'ringback to 101');
    assert.deepEqual(fields(ringback), { sipCallId });

    await simAnswer(s, phone('104'));
    const answered = { answeringParty: '104@1001', answeringDeviceId: phone('104'), sipCallId };
    assert.deepEqual(fields(await frame(start, is('answer', '104@1001'), 'answer at 104')), answered);
    assert.deepEqual(fields(await frame(start, is('answer', '101@1001'), 'answer to 101')), answered);

    // The caller's dial left before the BST joined the call; hold and end are not setup events.
    const dial = await frame(start, is('dial', '101@1001'), 'dial of 101');
    assert.equal(dial.callId, bob.callId);
    assert.equal('sipCallId' in dial, false);
    await callRequest(BOB, bob.callId, { callRequest: 'holdCall', myPartyId: '101@1001' });
    await hangUp(BOB, bob.callId);
    const ends = [
      await frame(start, is('end', '101@1001'), 'end of 101'),
      await frame(start, is('end', '104@1001'), 'end of 104'),
    ];
    const after = sock.frames.slice(start).filter((f) => f.smdrCallId === bob.smdrCallId);
    for (const f of after.filter((x) => ['hold', 'end'].includes(String(x.event)))) {
      assert.equal('sipCallId' in f, false, JSON.stringify(f));
    }
    assert.equal(ends.length, 2);
  });

  test('a call without a basic SIP terminal carries no sipCallId', async () => {
    const start = sock.frames.length;
    const bob = await makeCall(BOB, '101@1001', '102');
    await frame(start, is('ringing', '102@1001'), 'ringing at 102');
    await simAnswer(s, phone('102'));
    await frame(start, is('answer', '101@1001'), 'answer to 101');
    const frames = sock.frames.slice(start).filter((f) => f.smdrCallId === bob.smdrCallId);
    assert.deepEqual(
      frames.map((f) => f.event),
      ['dial', 'offer', 'ringing', 'ringback', 'answer', 'answer'],
    );
    assert.ok(frames.every((f) => !('sipCallId' in f)));
    await hangUp(BOB, bob.callId);
    await frame(start, is('end', '102@1001'), 'end of 102');
  });
});
