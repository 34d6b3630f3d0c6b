import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Lockout, lockoutKey } from '../../../../src/api/auth/lockout.js';

test('lock-outs heard from other nodes are bounded: ended ones are dropped under a flood', () => {
  let now = 1_000_000;
  const lockout = new Lockout(
    () => ({ failures: 3, windowMs: 1_000, periodMs: 1_000 }),
    () => now,
  );
  // A cluster node hears every lock-out any node decides (one per address of a flood).
  for (let i = 0; i < 10_000; i++)
    lockout.lockUntil(lockoutKey('unknown', `2001:db8::${i.toString(16)}`), now + 10);
  assert.equal(lockout.size, 10_000);
  now += 20; // they have all ended
  lockout.lockUntil(lockoutKey('unknown', '203.0.113.9'), now + 1_000);
  assert.equal(lockout.size, 1, 'only the live one is kept');
  assert.ok(lockout.lockedFor('unknown', '203.0.113.9') > 0);
});
