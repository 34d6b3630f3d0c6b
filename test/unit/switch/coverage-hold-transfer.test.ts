import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallEndedEvent, CallEvent, LegView } from '../../../src/switch/types.js';
import { type Harness, harness } from './harness.js';

const A = '101@1001';
const B = '102@1001';
const C = '103@1001';

// Answered by call control (park.test.ts answers at the phone instead).
function connected(h: Harness, from: string, to: string): { caller: LegView; callee: LegView } {
  const caller = h.sw.makeCall({ tenantId: 1001, fromExt: from, to });
  const callee = h.sw.legsOf(1001, to).find((l) => l.smdrCallId === caller.smdrCallId)!;
  h.request(callee.callObserverId, 'answerCall', to);
  return { caller, callee };
}

const fieldsOf = (e: CallEvent | undefined) => e?.fields as Record<string, unknown>;

describe('coverage', () => {
  test('an unanswered call goes to voicemail after the ring timeout', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.clock.advance(19_999);
    assert.deepEqual(h.calls(B), ['offer', 'ringing']);
    h.clock.advance(1);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'forward', 'end']);
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'forward', 'answer']);
    const forward = h.callEvents(A)[2];
    assert.deepEqual(forward.fields, { forwardingParty: B, forwardTarget: 'VM@1001' });
    assert.deepEqual(fieldsOf(h.callEvents(A)[3]), {
      answeringParty: 'VM@1001',
      answeringDeviceId: 'voicemail',
    });
    assert.equal(fieldsOf(h.callEvents(B)[3]).endReason, 'forwarded');
    const leg = h.sw.leg(caller.callObserverId)!;
    assert.equal(leg.state, 'connected');
    assert.equal(leg.redirected, true);
    assert.deepEqual(
      leg.callParties.map((p) => p.partyId),
      [A, 'VM@1001'],
    );
    assert.deepEqual(h.presence(B), ['busy', 'idle']);
    h.sw.callRequest({ tenantId: 1001, callObserverId: caller.callObserverId, request: 'hangupCall' });
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'forward', 'answer', 'end']);
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.outcome, 'Voicemail');
    assert.ok(
      record.segments.some((s) => s.kind === 'forwarded' && s.text.endsWith('to Voicemail (no answer)')),
    );
  });

  test('voicemail hangs up after its longest message', async () => {
    const h = await harness();
    h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.clock.advance(20_000 + 120_000);
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'forward', 'answer', 'end']);
    assert.equal(fieldsOf(h.callEvents(A).at(-1)).endingParty, 'VM@1001');
    assert.equal(h.sw.legs(1001).length, 0);
  });

  test('deflect forwards a ringing call at once', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    const [ringing] = h.sw.legsOf(1001, '102');
    h.request(ringing.callObserverId, 'deflectCall', '102');
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'forward', 'end']);
    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'forward', 'answer']);
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'connected');
    assert.throws(
      () =>
        h.sw.callRequest({ tenantId: 1001, callObserverId: caller.callObserverId, request: 'deflectCall' }),
      { code: 'CALL_NOT_RINGING' },
    );
  });

  test('a call to an extension with do-not-disturb on is covered at once', async () => {
    const h = await harness();
    h.sw.setDnd(1001, '102', true);
    h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    assert.deepEqual(h.calls(B), ['offer', 'forward', 'end']);
    assert.deepEqual(h.calls(A), ['dial', 'forward', 'answer']);
  });
});

describe('hold and resume', () => {
  test('from the caller side, then from the called side', async () => {
    const h = await harness();
    const { caller, callee } = connected(h, '101', '102');
    const req = (leg: LegView, request: 'holdCall' | 'resumeHeldCall', myExt: string) =>
      h.sw.callRequest({ tenantId: 1001, callObserverId: leg.callObserverId, request, myExt });

    req(caller, 'holdCall', '101');
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'held');
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'remoteHeld');
    assert.deepEqual(fieldsOf(h.callEvents(B).at(-1)), { holdingParty: A, heldParty: B });
    assert.throws(() => req(caller, 'holdCall', '101'), { code: 'CALL_ALREADY_HELD' });
    assert.throws(() => req(callee, 'resumeHeldCall', '102'), { code: 'CALL_NOT_HELD' });
    req(caller, 'resumeHeldCall', '101');
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'connected');
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'connected');
    assert.deepEqual(fieldsOf(h.callEvents(A).at(-1)), { resumingParty: A, heldParty: B });

    req(callee, 'holdCall', '102');
    assert.equal(h.sw.leg(callee.callObserverId)?.state, 'held');
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'remoteHeld');
    assert.deepEqual(fieldsOf(h.callEvents(A).at(-1)), { holdingParty: B, heldParty: A });
    req(callee, 'resumeHeldCall', '102');

    assert.deepEqual(h.calls(A), ['dial', 'ringback', 'answer', 'hold', 'resume', 'hold', 'resume']);
    assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'hold', 'resume', 'hold', 'resume']);
    assert.throws(() => req(caller, 'holdCall', '102'), { code: 'MY_PARTY_MISMATCH' });
  });
});

describe('transfer', () => {
  for (const pathIsActive of [true, false]) {
    test(`consultative transfer (path names the ${pathIsActive ? 'active' : 'held'} call)`, async () => {
      const h = await harness();
      const first = connected(h, '101', '102');
      h.request(first.caller.callObserverId, 'holdCall', '101');
      const consult = connected(h, '101', '103');
      const [path, other] = pathIsActive ? [consult.caller, first.caller] : [first.caller, consult.caller];
      h.request(path.callObserverId, 'transfer', '101', { otherCallId: other.callObserverId });
      assert.deepEqual(h.calls(A, path.callObserverId).slice(-2), ['transfer', 'end']);
      assert.deepEqual(h.calls(A, other.callObserverId).slice(-1), ['end']);
      assert.deepEqual(h.calls(B), ['offer', 'ringing', 'answer', 'hold', 'transfer']);
      assert.deepEqual(h.calls(C), ['offer', 'ringing', 'answer', 'transfer']);
      assert.deepEqual(fieldsOf(h.callEvents(C).at(-1)), {
        transferringParty: A,
        transferee: B,
        transferTarget: C,
      });
      const b = h.sw.leg(first.callee.callObserverId)!;
      const c = h.sw.leg(consult.callee.callObserverId)!;
      assert.equal(b.state, 'connected');
      assert.equal(c.state, 'connected');
      assert.equal(b.transferred, true);
      assert.deepEqual(
        b.callParties.map((p) => p.partyId),
        [B, C],
      );
      assert.deepEqual(h.sw.legsOf(1001, '101'), []);
      assert.deepEqual(h.presence(A), ['busy', 'idle']);
      h.sw.deviceHangup('ph1001-103');
      assert.deepEqual(h.calls(B).at(-1), 'end');
      assert.equal(h.events.filter((e) => e.type === 'callEnded').length, 2);
      assert.deepEqual(h.errors, []);
    });
  }

  test('transfer needs one held and one active call', async () => {
    const h = await harness();
    const first = connected(h, '101', '102');
    const second = connected(h, '101', '103');
    assert.throws(
      () =>
        h.request(second.caller.callObserverId, 'transfer', '101', {
          otherCallId: first.caller.callObserverId,
        }),
      { code: 'TRANSFER_NEEDS_HELD_AND_ACTIVE' },
    );
    assert.throws(
      () =>
        h.request(second.caller.callObserverId, 'transfer', '101', {
          otherCallId: second.callee.callObserverId,
        }),
      { code: 'TRANSFER_NEEDS_TWO_CALLS' },
    );
  });
});
