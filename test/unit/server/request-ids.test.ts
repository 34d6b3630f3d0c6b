import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, test } from 'node:test';
import { RequestIds, requestIdOf } from '../../../src/server/request-ids.js';

const UUID_V8 = /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const requestWith = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

describe('request ids', () => {
  test('made ids are version 8 UUIDs: one random prefix per start, then a counter', () => {
    const ids = new RequestIds(Buffer.alloc(16, 0xff));
    assert.equal(ids.next(), 'ffffffff-ffff-8fff-bfff-000000000001');
    const made = Array.from({ length: 20 }, () => ids.next());
    for (const id of made) assert.match(id, UUID_V8);
    assert.equal(made[0], 'ffffffff-ffff-8fff-bfff-000000000002');
    // The counter carries into the next hex digit.
    assert.equal(made[14], 'ffffffff-ffff-8fff-bfff-000000000010');
    assert.equal(new Set(made).size, made.length);
  });

  test('two starts draw different prefixes', () => {
    const a = new RequestIds().next();
    const b = new RequestIds().next();
    assert.match(a, UUID_V8);
    assert.notEqual(a.slice(0, 23), b.slice(0, 23));
    assert.equal(a.slice(24), b.slice(24));
  });

  test('the counter is exact up to its 12 hex digits', () => {
    const ids = new RequestIds(Buffer.alloc(16));
    (ids as unknown as { n: number }).n = 0xfffffffffffe;
    assert.equal(ids.next().slice(24), 'ffffffffffff');
  });

  test('a plausible client id is kept; anything else gets a made id', () => {
    assert.equal(requestIdOf(requestWith({ 'x-request-id': 'trace-42.a:b' })), 'trace-42.a:b');
    for (const bad of ['x'.repeat(129), 'has space', '<script>', ''])
      assert.match(requestIdOf(requestWith({ 'x-request-id': bad })), UUID_V8, bad);
    const first = requestIdOf(requestWith({}));
    const second = requestIdOf(requestWith({}));
    assert.match(first, UUID_V8);
    assert.notEqual(first, second);
  });
});
