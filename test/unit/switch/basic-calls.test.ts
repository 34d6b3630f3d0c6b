import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallEndedEvent } from '../../../src/switch/types.js';
import { harness, PHONE } from './harness.js';

const A = '101@1001';
const B = '102@1001';

describe('internal calls', () => {
  test('liveLegs summarises the legs that have not ended, of one extension or of the tenant', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    const [offered] = h.sw.legsOf(1001, '102');
    const summaryOf = (l: typeof caller) => ({
      callObserverId: l.callObserverId,
      smdrCallId: l.smdrCallId,
      state: l.state,
      from: l.from,
      to: l.to,
    });
    assert.deepEqual(h.sw.liveLegs(1001, '101'), [summaryOf(caller)]);
    assert.deepEqual(h.sw.liveLegs(1001, '102'), [summaryOf(offered)]);
    assert.deepEqual(
      h.sw
        .liveLegs(1001)
        .map((l) => l.callObserverId)
        .sort(),
      [caller.callObserverId, offered.callObserverId].sort(),
    );
    assert.deepEqual(h.sw.liveLegs(1002), []);
    h.sw.callRequest({ tenantId: 1001, callObserverId: caller.callObserverId, request: 'hangupCall' });
    assert.deepEqual(h.sw.liveLegs(1001, '101'), []);
    assert.deepEqual(h.sw.liveLegs(1001), []);
  });

  test('answered, then hung up by the caller', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    assert.equal(caller.state, 'ringback');
    assert.equal(caller.deviceId, PHONE('101'));
    const [offered] = h.sw.legsOf(1001, '102');
    assert.equal(offered.state, 'ringing');
    assert.equal(offered.smdrCallId, caller.smdrCallId);
    assert.notEqual(offered.callObserverId, caller.callObserverId);
    h.clock.advance(3000);
    h.request(offered.callObserverId, 'answerCall', '102');
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'connected');
    assert.equal(h.sw.leg(offered.callObserverId)?.state, 'connected');
    h.clock.advance(10_000);
    const ended = h.request(caller.callObserverId, 'hangupCall');
    assert.equal(ended?.state, 'ended');
    assert.equal(ended?.talkDurationMs, 10_000);

    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'answer', 'end']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'end']);
    assert.deepEqual(h.presence(A), ['busy', 'idle']);
    assert.deepEqual(h.presence(B), ['busy', 'idle']);
    const dial = h.callEvents(A)[0];
    assert.equal(dial.name === 'dial' && dial.fields.dialingDeviceId, PHONE('101'));
    const offer = h.callEvents(B)[0];
    assert.ok(offer.name === 'offer');
    assert.equal(offer.fields.from, '101');
    assert.equal(offer.fields.to, '102');
    assert.equal(offer.fields.callingName, 'Bob Brown');
    const answer = h.callEvents(A)[2];
    assert.ok(answer.name === 'answer');
    assert.equal(answer.fields.answeringParty, B);
    const end = h.callEvents(B)[3];
    assert.ok(end.name === 'end');
    assert.equal(end.fields.endingParty, A);
    assert.equal(h.sw.legs(1001).length, 0);

    const records = h.events.filter((e): e is CallEndedEvent => e.type === 'callEnded');
    assert.equal(records.length, 1);
    const r = records[0].record;
    assert.equal(r.smdrCallId, caller.smdrCallId);
    assert.equal(r.outcome, 'Answered');
    assert.equal(r.direction, 'internal');
    assert.equal(r.answeredAt! - r.startedAt, 3000);
    assert.deepEqual(
      r.segments.map((s) => s.kind),
      ['outbound', 'called', 'answered', 'disconnected'],
    );
    assert.equal(r.segments.at(-1)?.text, 'Disconnected by 101 Bob Brown');
    assert.deepEqual(h.errors, []);
  });

  test('answered on the phone, then hung up by the called party', async () => {
    const h = await harness();
    const caller = h.sw.deviceDial(PHONE('101'), '102');
    const answered = h.sw.deviceAnswer(PHONE('102'));
    assert.equal(answered.state, 'connected');
    assert.equal(answered.deviceId, PHONE('102'));
    h.sw.deviceHangup(PHONE('102'));
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'ended');
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'answer', 'end']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'end']);
    const end = h.callEvents(A).at(-1)!;
    assert.ok(end.name === 'end');
    assert.equal(end.fields.endingParty, B);
    assert.equal(h.sw.presence(1001, '101').callActivity, 'idle');
  });

  test('answerCall on a call that is not ringing is refused', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    assert.throws(
      () =>
        h.sw.callRequest({ tenantId: 1001, callObserverId: caller.callObserverId, request: 'answerCall' }),
      { code: 'CALL_NOT_RINGING' },
    );
    assert.throws(
      () =>
        h.sw.callRequest({ tenantId: 1002, callObserverId: caller.callObserverId, request: 'hangupCall' }),
      { code: 'CALL_NOT_FOUND' },
    );
    assert.throws(
      () => h.sw.callRequest({ tenantId: 1001, callObserverId: caller.callObserverId, request: 'holdCall' }),
      { code: 'CALL_NOT_CONNECTED' },
    );
  });

  test('an unknown number raises callError, then end', async () => {
    const h = await harness();
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '4444' });
    assert.equal(leg.state, 'ended');
    assert.deepEqual(h.calls(A), ['dial', 'callError', 'end']);
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.outcome, 'Failed');
  });

  test('makeCall validates its input', async () => {
    const h = await harness();
    assert.throws(() => h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: 'abc' }), {
      code: 'INVALID_NUMBER',
    });
    assert.throws(() => h.sw.makeCall({ tenantId: 1001, fromExt: '999', to: '102' }), {
      code: 'EXTENSION_NOT_FOUND',
    });
    assert.throws(
      () => h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102', deviceId: PHONE('102') }),
      {
        code: 'DEVICE_NOT_OWNED',
      },
    );
    h.sw.unregisterDevice(PHONE('101'));
    assert.throws(() => h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' }), {
      code: 'NO_REGISTERED_DEVICE',
    });
    assert.deepEqual(h.calls(A), []);
  });
});
