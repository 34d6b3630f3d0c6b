import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CALL_ID_EPOCH_MS, CallIdGenerator, isUuid, uuid } from '../../../src/core/ids.js';

test('call ids are safe JSON numbers, strictly increasing, and carry the node id', () => {
  const gen = new CallIdGenerator(5);
  let prev = 0;
  for (let i = 0; i < 10_000; i++) {
    const id = gen.next();
    assert.match(id, /^\d+$/);
    const n = Number(id);
    assert.ok(Number.isSafeInteger(n), `${id} is a safe integer`);
    assert.equal(JSON.parse(JSON.stringify({ callId: n })).callId, n);
    assert.equal(n % 16, 5);
    assert.ok(n > prev);
    prev = n;
  }
});

test('a restarted process does not reuse ids of the previous one', () => {
  let now = Date.UTC(2026, 10, 21);
  const first = new CallIdGenerator(0, () => now);
  const a = Array.from({ length: 500 }, () => Number(first.next()));
  now += 1; // the next process starts a millisecond later
  const second = new CallIdGenerator(0, () => now);
  assert.ok(Number(second.next()) > Math.max(...a));
});

test('ids stay safe until 2042 and fail loudly after the id space', () => {
  assert.ok(Number.isSafeInteger(Number(new CallIdGenerator(15, () => Date.UTC(2042, 0, 1)).next())));
  assert.throws(
    () => new CallIdGenerator(0, () => CALL_ID_EPOCH_MS + 2 ** 53 / 16_000 + 1).next(),
    RangeError,
  );
});

test('uuids', () => {
  assert.equal(isUuid(uuid()), true);
  assert.equal(isUuid('not-a-uuid'), false);
});
