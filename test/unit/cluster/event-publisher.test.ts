import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { EventPublisher } from '../../../src/cluster/event-publisher.js';

/**
 * A stand-in for JetStream's publish: records what is sent, stores by message id (its duplicate
 * window), and answers each acknowledgement when the test says.
 */
class FakeStream {
  sent: string[] = [];
  stored: string[] = [];
  private pending: { id: string; ok: (a: PubAck) => void; fail: (e: Error) => void }[] = [];

  client(): JetStreamClient {
    return {
      publish: (_subject: string, data: Uint8Array, opts: { msgID: string }) => {
        const body = new TextDecoder().decode(data);
        this.sent.push(body);
        return new Promise<PubAck>((ok, fail) => this.pending.push({ id: opts.msgID, ok, fail }));
      },
    } as unknown as JetStreamClient;
  }

  /** Stores and acknowledges the oldest publish awaiting its acknowledgement. */
  ack(): void {
    const p = this.pending.shift()!;
    const duplicate = this.stored.includes(p.id);
    if (!duplicate) this.stored.push(p.id);
    p.ok({ stream: 'S', seq: this.stored.length, duplicate, domain: '' } as PubAck);
  }

  /** Fails the oldest publish; `landed`: it was stored all the same (a lost acknowledgement). */
  fail(landed = false): void {
    const p = this.pending.shift()!;
    if (landed) this.stored.push(p.id);
    p.fail(new Error('timeout'));
  }

  get waiting(): number {
    return this.pending.length;
  }
}

const log = { warn() {}, error() {} };
const tick = () => new Promise((r) => setTimeout(r, 0));
const enc = (s: string) => new TextEncoder().encode(s);
/** Lets the recovery loop go one step: a try, its acknowledgement. */
async function until(cond: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('event publisher', () => {
  test('publishes in order without waiting for each acknowledgement', async () => {
    const js = new FakeStream();
    const p = new EventPublisher(js.client(), { msgIdPrefix: 'n:', log });
    for (let i = 1; i <= 5; i++) p.publish('s', enc(`e${i}`));
    assert.deepEqual(js.sent, ['e1', 'e2', 'e3', 'e4', 'e5']);
    assert.equal(js.waiting, 5);
    for (let i = 0; i < 5; i++) js.ack();
    await p.idle();
    assert.deepEqual(js.stored, ['n:1', 'n:2', 'n:3', 'n:4', 'n:5']);
    assert.equal(p.stats.published, 5);
  });

  test('a failed acknowledgement holds new events back and publishes again in order', async () => {
    const js = new FakeStream();
    const p = new EventPublisher(js.client(), { msgIdPrefix: 'n:', log });
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    p.publish('s', enc('e3'));
    js.ack();
    js.fail(); // e2: not stored
    await tick();
    p.publish('s', enc('e4')); // held: recovery is under way
    assert.deepEqual(js.sent, ['e1', 'e2', 'e3']);
    js.ack(); // e3 was stored before e2's retry
    await until(() => js.waiting === 1);
    assert.deepEqual(js.sent.slice(3), ['e2']);
    js.ack();
    await until(() => js.waiting === 1);
    assert.deepEqual(js.sent.slice(4), ['e4']);
    js.ack();
    await p.idle();
    assert.deepEqual(js.stored, ['n:1', 'n:3', 'n:2', 'n:4']);
    assert.equal(p.stats.failures, 1);
    assert.equal(p.stats.reordered, 1, 'e2 landed after e3: counted');
    // Back to pipelining.
    p.publish('s', enc('e5'));
    p.publish('s', enc('e6'));
    assert.equal(js.waiting, 2);
    js.ack();
    js.ack();
    await p.idle();
  });

  test('a publish that landed though its acknowledgement failed is stored once, in its place', async () => {
    const js = new FakeStream();
    const p = new EventPublisher(js.client(), { msgIdPrefix: 'n:', log });
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    js.fail(true);
    js.ack();
    await until(() => js.waiting === 1);
    js.ack(); // the retry of e1: a duplicate
    await p.idle();
    assert.deepEqual(js.stored, ['n:1', 'n:2']);
    assert.equal(p.stats.reordered, 0);
    assert.equal(p.stats.published, 2, 'each event counted once');
  });

  test('an event still failing after the retry window is dropped and counted', async () => {
    const js = new FakeStream();
    const p = new EventPublisher(js.client(), { msgIdPrefix: 'n:', log, retryWindowMs: 150 });
    p.publish('s', enc('e1'));
    js.fail();
    for (let i = 0; i < 20 && p.stats.lost === 0; i++) {
      await until(() => js.waiting === 1 || p.stats.lost === 1);
      if (js.waiting) js.fail();
    }
    await p.idle();
    assert.equal(p.stats.lost, 1);
    assert.deepEqual(js.stored, []);
  });
});
