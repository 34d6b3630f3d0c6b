import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backoff } from '../../../../../src/api/voice/webhooks/delivery-queue.js';

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
