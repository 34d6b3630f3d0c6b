/**
 * A live call in durable form, taken by another switch: ended there with "node lost" through the
 * normal end path (events, presence, park locations, record), or, for an outside caller waiting
 * in an ACD, waiting on with its ids and queue time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DurableCall } from '../../../src/switch/switch.js';
import type { CallEndedEvent, CallEvent, ParkLocationEvent } from '../../../src/switch/types.js';
import { harness, PHONE } from './harness.js';

const A = '101@1001';
const B = '102@1001';
const SALES_DID = '+15555550150';
/** Through the database and back. */
const stored = (d: DurableCall | undefined): DurableCall => JSON.parse(JSON.stringify(d));

const ended = (events: readonly unknown[]) =>
  (events as CallEndedEvent[]).filter((e) => e.type === 'callEnded');

describe('durable calls', () => {
  test('the durable form is the call as it stood: a later step does not reach it', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.deviceAnswer(PHONE('102'));
    const before = h.sw.durableCall(1001, caller.smdrCallId)!;
    const steps = before.segments.length;
    h.sw.callRequest({
      tenantId: 1001,
      callObserverId: caller.callObserverId,
      request: 'holdCall',
      myExt: '101',
    });
    assert.equal(before.segments.length, steps, 'taken before the hold');
    const after = h.sw.durableCall(1001, caller.smdrCallId)!;
    assert.equal(after.segments.length, steps + 1);
    assert.equal(after.segments.at(-1)?.kind, 'held');
    assert.equal(after.legs.find((l) => l.id === caller.callObserverId)?.holding, true);
    assert.equal(before.legs.find((l) => l.id === caller.callObserverId)?.holding, false);
  });

  test('a connected call ends on the node that takes it over, with "node lost" on every side', async () => {
    const lost = await harness();
    const caller = lost.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    lost.clock.advance(1000);
    const callee = lost.sw.deviceAnswer(PHONE('102'));
    lost.clock.advance(5000);
    const d = stored(lost.sw.durableCall(1001, caller.smdrCallId));
    assert.equal(lost.sw.durableCall(1002, caller.smdrCallId), undefined, 'only in its own tenant');

    const next = await harness();
    next.clock.advance(9000);
    assert.equal(next.sw.canWaitOn(d), false);
    next.sw.endLostCall(d, 'node lost');
    for (const [account, leg] of [
      [A, caller],
      [B, callee],
    ] as const) {
      const [end] = next.callEvents(account) as Extract<CallEvent, { name: 'end' }>[];
      assert.equal(end?.name, 'end', `${account} hears the end`);
      assert.equal(end.callObserverId, leg.callObserverId, 'on the leg it knew');
      assert.equal(end.smdrCallId, caller.smdrCallId);
      assert.equal(end.fields.endReason, 'node lost');
      assert.equal(end.fields.endingParty, 'system');
      assert.equal(end.fields.callDurationMs, next.clock.now() - leg.startTime);
      assert.deepEqual(next.presence(account), ['idle'], 'busy was said before; idle now');
    }
    const [record] = ended(next.events);
    assert.equal(record?.record.outcome, 'Answered');
    assert.equal(record.record.answeredAt, callee.answerTime);
    assert.equal(record.record.startedAt, caller.startTime);
    assert.deepEqual(
      record.record.parties.map((p) => p.account),
      [A, B],
    );
    assert.deepEqual(record.record.segments.at(-1), {
      at: next.clock.now(),
      kind: 'disconnected',
      text: 'Disconnected (node lost)',
    });
    assert.deepEqual(next.sw.legs(1001), [], 'nothing of it is left live');
    assert.equal(next.sw.presence(1001, '101').callActivity, 'idle');
    assert.deepEqual(next.errors, []);

    next.clear();
    next.sw.endLostCall(d, 'node lost');
    assert.equal(ended(next.events).length, 1, 'a call is not recreated while it is live');
  });

  test('a parked call ends and its park location becomes idle', async () => {
    const lost = await harness();
    const caller = lost.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    lost.sw.deviceAnswer(PHONE('102'));
    lost.sw.callRequest({
      tenantId: 1001,
      callObserverId: caller.callObserverId,
      request: 'parkCall',
      myExt: '101',
      parkLocation: 2,
    });
    const d = stored(lost.sw.durableCall(1001, caller.smdrCallId));

    const next = await harness();
    next.sw.endLostCall(d, 'node lost');
    const park = next.events.filter((e): e is ParkLocationEvent => e.type === 'parkLocation');
    assert.deepEqual(
      park.map((e) => `${e.observed} ${e.name}`),
      ['PL2@1001 idle'],
    );
    assert.deepEqual(next.calls(A), [], '101 had left the call before');
    assert.deepEqual(next.calls(B), ['end']);
    assert.equal(next.sw.parkLocationStatus(1001, 2).state, 'idle');
  });

  test('an outside caller waiting in an ACD waits on; the offer that rang an agent ends', async () => {
    const lost = await harness();
    lost.clock.advance(2000);
    const { pstnCallId } = lost.sw.pstnCall({ from: '+15551230001', to: SALES_DID, callerName: 'Pat' });
    const [queued] = lost.sw.queuedCalls(1001);
    assert.equal(queued?.callObserverId, pstnCallId);
    lost.clock.advance(3000);
    const offer = lost.sw.offerQueuedCall(queued.smdrCallId, '101');
    const d = stored(lost.sw.durableCall(1001, queued.smdrCallId));

    const next = await harness();
    next.clock.advance(10_000);
    assert.equal(next.sw.canWaitOn(d), true);
    assert.equal(next.sw.restoreWaitingCall(d, 'node lost'), true);
    const [end] = next.callEvents(A);
    assert.equal(end?.name, 'end');
    assert.equal(end.callObserverId, offer.callObserverId);
    assert.equal((end as Extract<CallEvent, { name: 'end' }>).fields.endReason, 'node lost');
    assert.deepEqual(ended(next.events), [], 'the call goes on');
    assert.deepEqual(next.calls('500@1001'), [], 'the queue itself hears nothing new');

    const [waiting] = next.sw.queuedCalls(1001);
    assert.equal(waiting?.callObserverId, pstnCallId, 'the same caller leg');
    assert.equal(waiting.queue, '500');
    assert.equal(waiting.startTime, queued.startTime);
    const snapshot = next.sw.snapshot();
    const sales = snapshot.queues.find((q) => q.acdExt === '500' && q.tenantId === 1001);
    assert.equal(sales?.calls[0]?.since, queued.startTime, 'its queue time is kept');
    assert.ok(snapshot.pstnCalls.some((p) => p.pstnCallId === pstnCallId));

    // It is a queue call like any other: offered, answered, hung up.
    next.clear();
    next.sw.offerQueuedCall(queued.smdrCallId, '102');
    next.sw.deviceAnswer(PHONE('102'));
    assert.deepEqual(
      next.port.map((p) => p.fn),
      ['offerAnswered'],
    );
    next.sw.pstnHangup(pstnCallId);
    const [record] = ended(next.events);
    assert.equal(record?.record.outcome, 'Answered');
    assert.equal(record.record.acd, '500');
    assert.ok(record.record.segments.some((s) => s.kind === 'queued'));
    assert.deepEqual(next.errors, []);
  });

  test('a caller from an extension waiting in a queue does not wait on: its call ends', async () => {
    const lost = await harness();
    const caller = lost.sw.makeCall({ tenantId: 1001, fromExt: '103', to: '500' });
    assert.equal(lost.sw.queuedCalls(1001).length, 1);
    const d = stored(lost.sw.durableCall(1001, caller.smdrCallId));
    const next = await harness();
    assert.equal(next.sw.canWaitOn(d), false);
    assert.equal(next.sw.restoreWaitingCall(d, 'node lost'), false);
    next.sw.endLostCall(d, 'node lost');
    assert.equal(ended(next.events)[0]?.record.outcome, 'Abandoned');
    assert.deepEqual(next.sw.queuedCalls(1001), []);
  });

  test('a tenant dropped is forgotten without a word', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.deviceAnswer(PHONE('102'));
    h.sw.pstnCall({ from: '+15551230001', to: SALES_DID });
    const other = h.sw.makeCall({ tenantId: 1002, fromExt: '201', to: '202' });
    h.clear();
    h.sw.dropTenant(1001);
    assert.deepEqual(h.events, []);
    assert.deepEqual(h.sw.legs(1001), []);
    assert.deepEqual(h.sw.queuedCalls(1001), []);
    assert.equal(h.sw.durableCall(1001, caller.smdrCallId), undefined);
    assert.equal(h.sw.presence(1001, '101').callActivity, 'idle');
    assert.equal(h.sw.legs(1002).length, 2, 'other tenants keep theirs');
    assert.ok(h.sw.durableCall(1002, other.smdrCallId));
  });
});
