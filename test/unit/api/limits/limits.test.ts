import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BusyError, RequestLimiter, SocketRegistry } from '../../../../src/api/limits/index.js';
import type { SharedSocketClaims } from '../../../../src/core/shared-security.js';

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

  /** Claims over every node, as the database keeps them, whose `free` lands `freeDelayMs` late. */
  class SlowFreeClaims implements SharedSocketClaims {
    readonly live = new Map<string, string>();
    asked = 0;
    private next = 0;
    constructor(private readonly freeDelayMs: number) {}
    async claim(client: string, perClient: number) {
      this.asked++;
      if ([...this.live.values()].filter((c) => c === client).length >= perClient) return null;
      const id = String(++this.next);
      this.live.set(id, client);
      return id;
    }
    free(id: string) {
      setTimeout(() => this.live.delete(id), this.freeDelayMs);
    }
    readonly lostListeners: ((id: string) => void)[] = [];
    onLost(listener: (id: string) => void) {
      this.lostListeners.push(listener);
    }
  }

  test('in a cluster, a socket whose claim was found gone is closed, and its slot freed', async () => {
    const claims = new SlowFreeClaims(0);
    const reg = new SocketRegistry(() => ({ max: 10, perClient: 1, idleMs: 60_000 }), claims);
    let closed = 0;
    assert.equal(await reg.check('e'), null);
    reg.admit(
      'e',
      () => {},
      () => closed++,
    );
    const [claim] = [...claims.live.keys()];
    // This node stalled: another node dropped the claim, and this node's renewal finds it gone.
    claims.live.delete(claim!);
    for (const l of claims.lostListeners) l(claim!);
    assert.equal(closed, 1);
    assert.equal(reg.open('e'), 0);
    for (const l of claims.lostListeners) l(claim!); // heard again: nothing more
    assert.equal(closed, 1);
  });

  /** Two nodes on shared claims, client c holding one socket on node a. */
  async function cOnNodeA(freeDelayMs: number, max = 10) {
    const limits = () => ({ max, perClient: 1, idleMs: 60_000 });
    const claims = new SlowFreeClaims(freeDelayMs);
    const [a, b] = [new SocketRegistry(limits, claims), new SocketRegistry(limits, claims)];
    assert.equal(await a.check('c'), null);
    return { claims, b, held: a.admit('c', () => {}) };
  }

  test('in a cluster, a socket closed on another node a moment ago does not refuse the reconnect', async () => {
    const { claims, b, held } = await cOnNodeA(80);
    // The client closes it and reconnects through node b at once: its claim is still being freed.
    held.release();
    assert.equal(claims.live.size, 1);
    assert.equal(await b.check('c'), null);
    b.admit('c', () => {}).release();
  });

  test('in a cluster, a socket still open on another node refuses the second one after the grace', async () => {
    const { claims, b, held } = await cOnNodeA(0);
    claims.asked = 0;
    assert.equal(await b.check('c'), 'client');
    assert.ok(claims.asked > 2, `looked for a free claim again during the grace (${claims.asked} times)`);
    assert.equal(await b.check('d'), null, 'another client is admitted');
    held.release();
  });

  test("in a cluster, one client's connects wait the grace one at a time; the others are refused at once", async () => {
    const { claims, b, held } = await cOnNodeA(0);
    claims.asked = 0;
    const waiting = b.check('c');
    assert.equal(await b.check('c'), 'client');
    assert.equal(claims.asked, 2, 'the second connect asked once, while the first waits');
    assert.equal(await waiting, 'client');
    held.release();
  });

  test('in a cluster, a socket that closes during the grace stops the looking and takes no claim', async () => {
    const { claims, b, held } = await cOnNodeA(0);
    let open = true;
    const waiting = b.check('c', () => open);
    // Freed on a, just as the socket waiting on b closes.
    held.release();
    open = false;
    assert.equal(await waiting, 'client');
    assert.equal(claims.live.size, 0, 'no claim taken for a socket that is gone');
  });

  test("in a cluster, a claim found after the grace still respects this node's total", async () => {
    const { claims, b, held } = await cOnNodeA(0, 1);
    const waiting = b.check('c');
    // While c waits, another client takes b's only socket; then c's other socket closes.
    assert.equal(await b.check('d'), null);
    const other = b.admit('d', () => {});
    held.release();
    assert.equal(await waiting, 'global');
    await new Promise((r) => setTimeout(r, 5)); // the fake's free lands on a timer
    assert.deepEqual([...claims.live.values()], ['d'], "c's claim was given back");
    other.release();
  });
});
