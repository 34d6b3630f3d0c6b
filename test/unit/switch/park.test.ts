import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LegView, ParkLocationEvent } from '../../../src/switch/types.js';
import { type Harness, harness, PHONE } from './harness.js';

const A = '101@1001';
const B = '102@1001';
const C = '103@1001';

// Answered at the phone (coverage-hold-transfer.test.ts answers by call control instead).
function connected(h: Harness, from: string, to: string): { caller: LegView; callee: LegView } {
  const caller = h.sw.makeCall({ tenantId: 1001, fromExt: from, to });
  const callee = h.sw.deviceAnswer(PHONE(to));
  return { caller, callee };
}

const parkEvents = (h: Harness) =>
  h.events
    .filter((e): e is ParkLocationEvent => e.type === 'parkLocation')
    .map((e) => `${e.observed} ${e.name}${e.parkedParty ? ` ${e.parkedParty}` : ''}`);

describe('park', () => {
  test('park at the given location, then retrieve from another phone', async () => {
    const h = await harness();
    const { caller, callee } = connected(h, '101', '102');
    h.request(caller.callObserverId, 'parkCall', '101', { parkLocation: 2 });
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'answer', 'park', 'end']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'park']);
    const park = h.callEvents(B).at(-1)!;
    assert.deepEqual(park.fields, {
      parkingPartyNumber: '101',
      parkingPartyName: 'Bob Brown',
      parkLocationId: 'PL2@1001',
      parkedPartyNumber: '102',
      parkedPartyName: 'Carol Chen',
    });
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'parked');
    assert.equal(h.sw.leg(callee.callObserverId)?.parkLocation, 2);
    assert.deepEqual(h.sw.parkLocationStatus(1001, 2), {
      account: 'PL2@1001',
      state: 'busy',
      parkedParty: B,
      parkedPartyName: 'Carol Chen',
      callObserverId: callee.callObserverId,
    });
    assert.throws(() => h.sw.retrieveParkedCall({ tenantId: 1001, fromExt: '103', parkLocation: 3 }), {
      code: 'PARK_LOCATION_IDLE',
    });

    const retriever = h.sw.retrieveParkedCall({ tenantId: 1001, fromExt: '103', parkLocation: 2 });
    assert.equal(retriever.state, 'connected');
    assert.equal(retriever.smdrCallId, callee.smdrCallId);
    assert.deepEqual(h.calls(C), ['dial', 'retrieve']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'park', 'retrieved']);
    const retrieved = h.callEvents(B).at(-1)!;
    assert.deepEqual(retrieved.fields, {
      retrievingPartyName: 'Dan Diaz',
      retrievingPartyID: C,
      parkLocationID: 'PL2@1001',
      observedPartyID: B,
      parkedPartyNumber: '102',
      parkedPartyName: 'Carol Chen',
    });
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'connected');
    assert.equal(h.sw.parkLocationStatus(1001, 2).state, 'idle');
    assert.deepEqual(parkEvents(h), [`PL2@1001 busy ${B}`, 'PL2@1001 idle']);
    h.sw.deviceHangup(PHONE('103'));
    assert.deepEqual(h.calls(B).at(-1), 'end');
    assert.deepEqual(h.calls(C), ['dial', 'retrieve', 'end']);
    assert.deepEqual(h.errors, []);
  });

  test('without featureData the first idle location is chosen; a busy one is refused', async () => {
    const h = await harness();
    const first = connected(h, '101', '102');
    h.request(first.caller.callObserverId, 'parkCall', '101');
    assert.equal(h.sw.leg(first.callee.callObserverId)?.parkLocation, 1);
    const second = connected(h, '103', '105');
    assert.throws(() => h.request(second.caller.callObserverId, 'parkCall', '103', { parkLocation: 1 }), {
      code: 'PARK_LOCATION_BUSY',
    });
    assert.throws(() => h.request(second.caller.callObserverId, 'parkCall', '103', { parkLocation: 9 }), {
      code: 'PARK_LOCATION_NOT_FOUND',
    });
    h.request(second.caller.callObserverId, 'parkCall', '103');
    assert.equal(h.sw.leg(second.callee.callObserverId)?.parkLocation, 2);
  });

  test('an unretrieved parked call rings the parker back after the recall time', async () => {
    const h = await harness();
    const { caller, callee } = connected(h, '101', '102');
    h.request(caller.callObserverId, 'parkCall', '101');
    h.clock.advance(179_999);
    assert.equal(h.sw.parkLocationStatus(1001, 1).state, 'busy');
    h.clock.advance(1);
    assert.equal(h.sw.parkLocationStatus(1001, 1).state, 'idle');
    const [recall] = h.sw.legsOf(1001, '101');
    assert.equal(recall.state, 'ringing');
    assert.equal(recall.smdrCallId, callee.smdrCallId);
    assert.notEqual(recall.callObserverId, caller.callObserverId);
    const offer = h.callEvents(A).at(-2)!;
    assert.ok(offer.name === 'offer');
    assert.equal(offer.fields.via, 'PL1@1001');
    assert.deepEqual(h.calls(A, recall.callObserverId), ['offer', 'ringing']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'park', 'ringback']);
    h.sw.deviceAnswer(PHONE('101'));
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'connected');
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'park', 'ringback', 'answer']);
    assert.deepEqual(parkEvents(h), [`PL1@1001 busy ${B}`, 'PL1@1001 idle']);
  });

  test('the parked party hanging up frees the location', async () => {
    const h = await harness();
    const { caller } = connected(h, '101', '102');
    h.request(caller.callObserverId, 'parkCall', '101');
    h.sw.deviceHangup(PHONE('102'));
    assert.equal(h.sw.parkLocationStatus(1001, 1).state, 'idle');
    assert.deepEqual(h.calls(B).at(-1), 'end');
    h.clock.advance(200_000);
    assert.deepEqual(h.sw.legs(1001), []);
  });
});

describe('click to call', () => {
  test('a phoneModelA phone goes off-hook by itself', async () => {
    const h = await harness();
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    assert.equal(leg.state, 'ringback');
    assert.deepEqual(h.calls(A), ['dial', 'ringback']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing']);
  });

  test('a BST rings first, and answerCall on a BST is refused', async () => {
    const h = await harness();
    const E = '104@1001';
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '104', to: '102' });
    assert.equal(leg.state, 'ringing');
    assert.equal(leg.deviceId, PHONE('104'));
    assert.deepEqual(h.calls(E), ['dial', 'ringing']);
    assert.deepEqual(h.calls(B), []);
    assert.throws(() => h.request(leg.callObserverId, 'answerCall', '104'), { code: 'BST_NOT_SUPPORTED' });
    h.sw.deviceAnswer(PHONE('104'));
    assert.deepEqual(h.calls(E), ['dial', 'ringing', 'ringback']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing']);
    h.sw.deviceAnswer(PHONE('102'));
    assert.equal(h.sw.leg(leg.callObserverId)?.state, 'connected');
    assert.throws(() => h.request(leg.callObserverId, 'holdCall', '104'), { code: 'BST_NOT_SUPPORTED' });
    h.sw.callRequest({ tenantId: 1001, callObserverId: leg.callObserverId, request: 'hangupCall' });
    assert.deepEqual(h.calls(E), ['dial', 'ringing', 'ringback', 'answer', 'end']);

    const incoming = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '104' });
    const [ringing] = h.sw.legsOf(1001, '104');
    assert.throws(() => h.request(ringing.callObserverId, 'answerCall', '104'), {
      code: 'BST_NOT_SUPPORTED',
    });
    h.sw.deviceAnswer(PHONE('104'));
    assert.equal(h.sw.leg(incoming.callObserverId)?.state, 'connected');
  });

  test('a call with a BST carries a sipCallId on its setup events; one without does not', async () => {
    const h = await harness();
    h.sw.makeCall({ tenantId: 1001, fromExt: '104', to: '102' });
    h.sw.deviceAnswer(PHONE('104'));
    h.sw.deviceAnswer(PHONE('102'));
    h.sw.deviceHangup(PHONE('102'));
    const sip = (account: string) =>
      h
        .callEvents(account)
        .map((e) => `${e.name}:${(e.fields as { sipCallId?: string }).sipCallId ? 'sip' : '-'}`);
    assert.deepEqual(sip('104@1001'), ['dial:sip', 'ringing:sip', 'ringback:sip', 'answer:sip', 'end:-']);
    assert.deepEqual(sip('102@1001'), ['offer:sip', 'ringing:sip', 'answer:sip', 'end:-']);
    const ids = new Set(h.callEvents('102@1001').map((e) => (e.fields as { sipCallId?: string }).sipCallId));
    assert.equal(ids.size, 2, 'one Call-ID for the call (and none on end)');

    h.clear();
    h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.deviceAnswer(PHONE('102'));
    assert.ok(h.callEvents('101@1001').every((e) => !('sipCallId' in e.fields)));
    assert.ok(h.callEvents('102@1001').every((e) => !('sipCallId' in e.fields)));
  });

  test('a BST without re-INVITE support cannot be controlled', async () => {
    const h = await harness();
    const d = h.dir.device(PHONE('104'))!;
    await h.dir.put('device', { ...d, sendsReinvite: false });
    assert.throws(() => h.sw.makeCall({ tenantId: 1001, fromExt: '104', to: '102' }), {
      code: 'BST_NOT_SUPPORTED',
    });
  });

  test('an external device is called first and, with a prompt, must press a key', async () => {
    const h = await harness();
    const leg = h.sw.makeCall({
      tenantId: 1001,
      fromExt: '101',
      to: '102',
      deviceIdType: 'external',
      deviceId: '+15557654321',
      playPrompt: true,
    });
    assert.equal(leg.state, 'ringing');
    assert.deepEqual(h.calls(A), ['dial', 'ringing']);
    const [out] = h.sw.pstnCalls();
    assert.deepEqual(
      { id: out.pstnCallId, to: out.to, state: out.state, direction: out.direction },
      { id: leg.callObserverId, to: '+15557654321', state: 'ringing', direction: 'outbound' },
    );
    const before = h.sw.stateGeneration();
    h.clock.advance(2000);
    assert.equal(h.sw.pstnCalls()[0].state, 'dialing');
    assert.deepEqual(h.calls(A), ['dial', 'ringing'], 'off-hook, waiting for the key: no event');
    assert.ok(h.sw.stateGeneration() > before, 'but the legs changed: what reads them is not kept');
    assert.deepEqual(h.calls(B), []);
    h.sw.pstnDigits(out.pstnCallId, '1');
    assert.deepEqual(h.calls(B), ['offer', 'ringing']);
    assert.deepEqual(h.calls(A), ['dial', 'ringing', 'ringback']);
    h.sw.deviceAnswer(PHONE('102'));
    assert.equal(h.sw.leg(leg.callObserverId)?.state, 'connected');
    h.sw.pstnHangup(out.pstnCallId);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'end']);
    assert.deepEqual(h.sw.pstnCalls(), []);
  });

  test('without a prompt the target is dialed once the external device answers', async () => {
    const h = await harness();
    h.sw.setPstnNumber('+15557654321', { answer: 'manual' });
    // As the test above, without the prompt: the target is dialed when the device answers.
    const leg = h.sw.makeCall({
      tenantId: 1001,
      fromExt: '101',
      to: '102',
      deviceIdType: 'external',
      deviceId: '+15557654321',
      playPrompt: false,
    });
    h.clock.advance(60_000);
    assert.deepEqual(h.calls(B), []);
    h.sw.pstnAnswer(leg.callObserverId);
    assert.deepEqual(h.calls(B), ['offer', 'ringing']);
    assert.throws(() => h.sw.pstnAnswer(leg.callObserverId), { code: 'CALL_NOT_RINGING' });
  });

  test('twinningDevice uses the extension twinning number', async () => {
    const h = await harness();
    assert.throws(
      () => h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102', deviceId: 'twinningDevice' }),
      { code: 'NO_TWINNING_NUMBER' },
    );
    const e = h.dir.extension(1001, '101')!;
    await h.dir.put('extension', { ...e, twinningNumber: '5551230000' });
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102', deviceId: 'twinningDevice' });
    assert.equal(leg.deviceId, '+15551230000');
    assert.equal(h.sw.pstnCalls()[0].to, '+15551230000');
  });
});
