import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BusyError, RequestLimiter } from '../../../../src/api/limits/index.js';
import type { SharedInflight } from '../../../../src/core/shared-security.js';

/** Other nodes' counts as a cluster node hears them: set by the test, heard by the limiter. */
class Peers implements SharedInflight {
  readonly told = new Map<string, number>();
  private readonly counts = new Map<string, { elsewhere: number; ahead: number }>();
  private listener: ((client: string) => void) | undefined;
  elsewhere = (client: string) => this.counts.get(client)?.elsewhere ?? 0;
  ahead = (client: string) => this.counts.get(client)?.ahead ?? 0;
  changed(client: string, n: number): void {
    this.told.set(client, n);
  }
  onHeard(listener: (client: string) => void): void {
    this.listener = listener;
  }
  hear(client: string, elsewhere: number, ahead = 0): void {
    this.counts.set(client, { elsewhere, ahead });
    this.listener?.(client);
  }
}

const limiter = (peers: Peers, perClient = 3, busyDelayMs = 1_000) =>
  new RequestLimiter(() => ({ inflight: 100, perClient, busyDelayMs }), peers);

describe('RequestLimiter over a cluster', () => {
  test('the other nodes’ requests count against the client’s limit; this node’s are told', async () => {
    const peers = new Peers();
    const l = limiter(peers, 3, 30);
    peers.hear('a', 2);
    const one = l.tryAcquire('a');
    assert.ok(one);
    assert.equal(peers.told.get('a'), 1);
    assert.equal(l.tryAcquire('a'), null);
    await assert.rejects(l.acquire('a'), BusyError);
    // Another client is not affected.
    assert.ok(l.tryAcquire('b'));
    one();
    assert.equal(peers.told.get('a'), 0);
  });

  test('a waiter starts when another node frees a slot', async () => {
    const peers = new Peers();
    const l = limiter(peers, 1);
    peers.hear('a', 1);
    const waiting = l.acquire('a');
    peers.hear('a', 0);
    (await waiting)();
  });

  test('over the limit, the node behind takes back its newest revocable slots', () => {
    const peers = new Peers();
    const l = limiter(peers, 3);
    const revoked: number[] = [];
    for (let i = 0; i < 3; i++) {
      const release = l.tryAcquire('a')!;
      l.offer('a', () => {
        revoked.push(i);
        release();
      });
    }
    // Two on a node ahead of this one: this node keeps one, the oldest.
    peers.hear('a', 2, 2);
    assert.deepEqual(revoked, [2, 1]);
    assert.equal(l.inFlight('a'), 1);
  });

  test('the node ahead keeps its slots; an offer ended is never taken back', () => {
    const peers = new Peers();
    const l = limiter(peers, 2);
    const revoked: string[] = [];
    l.tryAcquire('a');
    const started = l.offer('a', () => revoked.push('started'));
    started();
    l.tryAcquire('a');
    l.offer('a', () => revoked.push('second'));
    peers.hear('a', 2, 0);
    assert.deepEqual(revoked, []);
    peers.hear('a', 2, 1);
    assert.deepEqual(revoked, ['second']);
  });

  test('a request forwarded here (no client) takes a slot of the total only', () => {
    const peers = new Peers();
    const l = new RequestLimiter(() => ({ inflight: 2, perClient: 1, busyDelayMs: 10 }), peers);
    const a = l.tryAcquire('a')!;
    const f = l.tryAcquire(null)!;
    assert.equal(l.inFlight(), 2);
    assert.equal(l.inFlight('a'), 1);
    assert.equal(peers.told.size, 1);
    assert.equal(l.tryAcquire(null), null);
    f();
    a();
    assert.equal(l.inFlight(), 0);
  });
});
