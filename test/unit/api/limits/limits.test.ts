import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BusyError, RequestLimiter, SocketRegistry } from '../../../../src/api/limits/index.js';

describe('RequestLimiter', () => {
  test('a client beyond its limit waits and starts when a slot frees', async () => {
    const l = new RequestLimiter(() => ({ inflight: 100, perClient: 3, busyDelayMs: 5_000 }));
    const r = await Promise.all([l.acquire('a'), l.acquire('a'), l.acquire('a')]);
    let fourthStarted = false;
    const fourth = l.acquire('a').then((rel) => {
      fourthStarted = true;
      return rel;
    });
    const other = await l.acquire('b');
    await new Promise((res) => setImmediate(res));
    assert.equal(fourthStarted, false);
    assert.equal(l.inFlight('a'), 3);
    r[0]();
    r[0](); // releasing twice is harmless
    (await fourth)();
    assert.equal(fourthStarted, true);
    other();
    r[1]();
    r[2]();
    assert.equal(l.inFlight(), 0);
  });

  test('a request that cannot start within the busy delay is refused', async () => {
    const l = new RequestLimiter(() => ({ inflight: 1, perClient: 3, busyDelayMs: 20 }));
    const held = await l.acquire('a');
    await assert.rejects(l.acquire('b'), (e: unknown) => e instanceof BusyError && e.retryAfterSeconds === 1);
    held();
    (await l.acquire('b'))();
  });

  test('a waiter of a saturated client does not block other clients', async () => {
    const l = new RequestLimiter(() => ({ inflight: 10, perClient: 1, busyDelayMs: 1_000 }));
    const a1 = await l.acquire('a');
    const a2 = l.acquire('a');
    const b1 = await l.acquire('b');
    b1();
    a1();
    (await a2)();
  });

  test('idle clients are forgotten past 10,000 known clients, busy ones kept with their count', () => {
    const l = new RequestLimiter(() => ({ inflight: 100, perClient: 2, busyDelayMs: 1_000 }));
    const busy = l.tryAcquire('busy')!;
    for (let i = 0; i < 9_999; i++) l.tryAcquire(`idle ${i}`)!();
    assert.equal(l.knownClients(), 10_000);
    l.tryAcquire('one more')!();
    assert.equal(l.knownClients(), 2);
    assert.equal(l.inFlight('busy'), 1);
    assert.ok(l.tryAcquire('busy'));
    assert.equal(l.tryAcquire('busy'), null, 'the busy client is still at its limit of 2');
    busy();
  });
});

describe('SocketRegistry', () => {
  test('per-client and global admission', () => {
    const reg = new SocketRegistry(() => ({ max: 2, perClient: 1, idleMs: 60_000 }));
    assert.equal(reg.refusal('a'), null);
    const a = reg.admit('a', () => {});
    assert.equal(reg.refusal('a'), 'client');
    const b = reg.admit('b', () => {});
    assert.equal(reg.refusal('c'), 'global');
    a.release();
    a.release();
    assert.equal(reg.refusal('a'), null);
    b.release();
    assert.equal(reg.open(), 0);
  });

  test('an idle socket is closed; traffic postpones it', async () => {
    const reg = new SocketRegistry(() => ({ max: 10, perClient: 1, idleMs: 60 }));
    let idled = false;
    const slot = reg.admit('a', () => {
      idled = true;
    });
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setTimeout(r, 30));
      slot.touch();
    }
    assert.equal(idled, false);
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(idled, true);
    assert.equal(reg.open('a'), 0);
  });
});
