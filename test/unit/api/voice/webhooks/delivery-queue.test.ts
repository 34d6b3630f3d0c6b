import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoff, DeliveryQueue } from '../../../../../src/api/voice/webhooks/delivery-queue.js';
import { VirtualClock } from '../../../../../src/core/clock.js';
import type { StoredDelivery } from '../../../../../src/core/webhooks.js';

const policy = { baseDelayMs: 5_000, maxDelayMs: 3_600_000, retryWindowMs: 86_400_000 };

test('back-off doubles per retry, stays within [ceiling/2, ceiling], and is capped', () => {
  for (const [n, ceiling] of [
    [1, 5_000],
    [2, 10_000],
    [3, 20_000],
    [12, 3_600_000],
    [500, 3_600_000],
  ] as const) {
    assert.equal(
      backoff(policy, n, () => 0),
      ceiling / 2,
      `retry ${n}, lowest`,
    );
    assert.equal(
      backoff(policy, n, () => 1),
      ceiling,
      `retry ${n}, highest`,
    );
  }
  const jittered = new Set(Array.from({ length: 20 }, () => backoff(policy, 4)));
  assert.ok(jittered.size > 1, 'random jitter spreads the waits');
});

test('an attempt that throws before returning its promise is a failed try, retried; the queue does not stall', async () => {
  const clock = new VirtualClock();
  let calls = 0;
  const queue = new DeliveryQueue({
    clock,
    policy,
    attempt: () => {
      if (++calls === 1) throw new Error('observer broke');
      return Promise.resolve({ statusCode: 204 });
    },
    save: () => {},
    failing: () => {},
  });
  const d: StoredDelivery = {
    id: 'd1',
    webhookId: 'w',
    position: 1,
    body: '{}',
    status: 'pending',
    attempts: [],
  };
  queue.push(d);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(calls, 1, 'one try, then a wait on the clock (no busy loop)');
  assert.deepEqual(
    d.attempts.map((a) => a.error),
    ['observer broke'],
  );
  clock.advance(5_000);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(calls, 2);
  assert.equal(d.status, 'delivered');
  assert.equal(queue.pending.length, 0);
});
