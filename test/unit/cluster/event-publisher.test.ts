import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PubAck } from '@nats-io/jetstream';
import type { MsgHdrs } from '@nats-io/transport-node';
import { EventPublisher } from '../../../src/cluster/event-publisher.js';

/**
 * A stand-in for the stream: plain publishes are recorded and stored (or dropped) when the test
 * says, each stored one read back by the node's consumer (`confirm`); acknowledged publishes (the
 * recovery's) store by message id (the duplicate window) and are answered when the test says.
 */
class FakeStream {
  /** Plain publishes, in the order sent: [body, message id]. */
  sent: [string, string][] = [];
  /** Acknowledged publishes, in the order sent. */
  retried: string[] = [];
  /** Message ids in the order stored. */
  stored: string[] = [];
  private acks: { id: string; ok: (a: PubAck) => void; fail: (e: Error) => void }[] = [];
  publisher!: EventPublisher;
  closed = false;

  readonly nc = {
    publish: (_subject: string, data?: unknown, opts?: { headers?: MsgHdrs }) => {
      if (this.closed) throw new Error('connection closed');
      this.sent.push([new TextDecoder().decode(data as Uint8Array), opts!.headers!.get('Nats-Msg-Id')]);
    },
  };

  readonly js = {
    publish: (_subject: string, data?: unknown, opts?: { msgID?: string }) => {
      this.retried.push(new TextDecoder().decode(data as Uint8Array));
      return new Promise<PubAck>((ok, fail) => this.acks.push({ id: opts!.msgID!, ok, fail }));
    },
  };

  /** Stores the `i`th plain publish and lets the node's consumer read it back. */
  store(i: number): void {
    const id = this.sent[i]![1];
    if (!this.stored.includes(id)) this.stored.push(id);
    this.publisher.confirm(id);
  }

  /** Answers the oldest acknowledged publish: stored (a duplicate if it was already). */
  ack(): void {
    const a = this.acks.shift()!;
    const duplicate = this.stored.includes(a.id);
    if (!duplicate) this.stored.push(a.id);
    a.ok({ stream: 'S', seq: this.stored.length, duplicate, domain: '' } as PubAck);
  }

  failAck(): void {
    this.acks.shift()!.fail(new Error('timeout'));
  }

  get acksWaiting(): number {
    return this.acks.length;
  }
}

const log = { warn() {}, error() {} };
const enc = (s: string) => new TextEncoder().encode(s);

function publisherOn(
  stream: FakeStream,
  options: {
    confirmTimeoutMs?: number;
    retryWindowMs?: number;
    isCurrent?: (tenantId: number, epoch: number) => boolean;
  } = {},
) {
  stream.publisher = new EventPublisher(stream.nc, stream.js, { msgIdPrefix: 'n:', log, ...options });
  return stream.publisher;
}

async function until(cond: () => boolean, ms = 2_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('event publisher', () => {
  test('publishes in order without waiting, each confirmed by the node’s own consumer', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    for (let i = 1; i <= 5; i++) p.publish('s', enc(`e${i}`));
    assert.deepEqual(
      s.sent.map(([body]) => body),
      ['e1', 'e2', 'e3', 'e4', 'e5'],
    );
    assert.equal(p.awaiting, true);
    for (let i = 0; i < 5; i++) s.store(i);
    await p.idle();
    assert.equal(p.awaiting, false);
    assert.deepEqual(s.stored, ['n:1', 'n:2', 'n:3', 'n:4', 'n:5']);
    assert.equal(p.stats.published, 5);
    assert.deepEqual(s.retried, [], 'no acknowledged publish on the hot path');
    p.confirm('other-node:7');
    assert.equal(p.stats.published, 5, 'another node’s events are not this publisher’s');
  });

  test('its own events recognized by their bytes are confirmed in order, with their id and epoch', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    p.publish('s', enc('same'), 7, 1001);
    p.publish('s', enc('same'), 7, 1001);
    p.publish('s', enc('e3'), 8, 1002);
    assert.equal(p.recognize('s', enc('another node’s')), undefined);
    assert.equal(p.recognize('other', enc('same')), undefined, 'another subject');
    assert.equal(p.stats.published, 0, 'not this publisher’s: nothing confirmed');
    assert.deepEqual(p.recognize('s', enc('same')), { msgId: 'n:1', epoch: 7, own: true });
    assert.deepEqual(
      p.recognize('s', enc('same')),
      { msgId: 'n:2', epoch: 7, own: true },
      'the next one alike',
    );
    assert.deepEqual(p.recognize('s', enc('e3')), { msgId: 'n:3', epoch: 8, own: true });
    await p.idle();
    assert.equal(p.stats.published, 3);
    assert.equal(p.recognize('s', enc('e3')), undefined, 'once confirmed, no longer awaited');
  });

  test('an event stored past a lost one is not recognized: the time-out publishes both again, each stored once', async () => {
    const s = new FakeStream();
    const p = publisherOn(s, { confirmTimeoutMs: 50 });
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    s.stored.push('n:2'); // e1 never reached the stream; e2 did
    assert.equal(p.recognize('s', enc('e2')), undefined, 'only the oldest awaited event is compared');
    assert.equal(p.recovering, false);
    await until(() => s.acksWaiting === 1);
    assert.equal(p.recovering, true, 'origins are read by message id until it is done');
    s.ack();
    await until(() => s.acksWaiting === 1);
    s.ack(); // e2: a duplicate
    await p.idle();
    assert.deepEqual(s.retried, ['e1', 'e2']);
    assert.deepEqual(s.stored, ['n:2', 'n:1']);
    assert.equal(p.stats.published, 2);
    assert.equal(p.recovering, false);
  });

  test('a skipped event holds new ones back and is published again, in order, acknowledged', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    p.publish('s', enc('e3'));
    s.store(0);
    s.store(2); // e2 never reached the stream: e3 was stored before it
    p.publish('s', enc('e4')); // held: the recovery is under way
    assert.equal(s.sent.length, 3);
    await until(() => s.acksWaiting === 1);
    assert.deepEqual(s.retried, ['e2']);
    s.ack();
    await until(() => s.acksWaiting === 1);
    assert.deepEqual(s.retried, ['e2', 'e4']);
    s.ack();
    await p.idle();
    assert.deepEqual(s.stored, ['n:1', 'n:3', 'n:2', 'n:4']);
    assert.equal(p.stats.reordered, 1, 'e2 landed after e3: counted');
    assert.equal(p.stats.published, 4);
    // Back to plain publishes.
    p.publish('s', enc('e5'));
    assert.deepEqual(s.sent.at(-1), ['e5', 'n:5']);
    s.store(3);
    await p.idle();
  });

  test('events not confirmed in time are published again; one that had landed is stored once', async () => {
    const s = new FakeStream();
    const p = publisherOn(s, { confirmTimeoutMs: 50 });
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    s.stored.push('n:1'); // stored, but the consumer has not read it back (a lagging node)
    await until(() => s.acksWaiting === 1);
    s.ack();
    await until(() => s.acksWaiting === 1);
    s.ack();
    await p.idle();
    assert.deepEqual(s.retried, ['e1', 'e2']);
    assert.deepEqual(s.stored, ['n:1', 'n:2']);
    assert.equal(p.stats.reordered, 0);
    assert.equal(p.stats.published, 2);
  });

  test('a confirmation that comes late, during the recovery, spares its retry', async () => {
    const s = new FakeStream();
    const p = publisherOn(s, { confirmTimeoutMs: 50 });
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    await until(() => s.acksWaiting === 1);
    s.store(1); // e2 read back late, while e1 is being published again
    s.ack();
    await p.idle();
    assert.deepEqual(s.retried, ['e1']);
    assert.equal(p.stats.published, 2);
  });

  test('an event read back after its acknowledged retry, when no longer awaited, changes nothing', async () => {
    const s = new FakeStream();
    const p = publisherOn(s, { confirmTimeoutMs: 50 });
    p.publish('s', enc('e1'));
    s.stored.push('n:1'); // it landed, but the node's consumer lags behind
    await until(() => s.acksWaiting === 1);
    s.ack(); // the retry: a duplicate, acknowledged
    await p.idle();
    assert.equal(p.stats.published, 1);
    p.publish('s', enc('e2')); // awaited again, on the hot path
    s.store(0); // e1 read back at last, while e2 is awaited
    assert.equal(p.awaiting, true, 'e2 is still awaited: e1 does not skip it');
    assert.equal(p.stats.failures, 1, 'only the timed-out e1 counted as failed');
    s.store(1);
    await p.idle();
    assert.deepEqual(s.stored, ['n:1', 'n:2']);
    assert.deepEqual(s.retried, ['e1'], 'e2 never retried');
    assert.equal(p.stats.published, 2, 'e1 counted once');
    assert.equal(p.stats.reordered, 0);
    p.confirm('n:1'); // and once more, with nothing awaited
    assert.equal(p.stats.published, 2);
    assert.equal(p.awaiting, false);
  });

  test('an event whose lease ended before its retry is dropped, not stored after the next owner’s', async () => {
    const s = new FakeStream();
    const epochs = new Map([
      [1001, 4],
      [1002, 7],
    ]);
    const p = publisherOn(s, { isCurrent: (t, e) => epochs.get(t) === e });
    s.closed = true; // NATS down: every publish goes to the recovery
    p.publish('s', enc('1001 under 4'), 4, 1001);
    p.publish('s', enc('1002 under 7'), 7, 1002);
    await until(() => s.acksWaiting === 1);
    epochs.set(1001, 5); // 1001 lost and taken by another node (or taken back under a new lease)
    s.failAck(); // its acknowledged retry fails too; the next try finds the lease gone
    await until(() => s.acksWaiting === 1);
    s.ack();
    await p.idle();
    assert.deepEqual(s.retried, ['1001 under 4', '1002 under 7']);
    assert.deepEqual(s.stored, ['n:2']);
    assert.equal(p.stats.lost, 1);
    assert.equal(p.stats.published, 1);
  });

  test('says which tenants still have an event to store (a handover waits for them)', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    p.publish('s', enc('e1'), 3, 1001);
    assert.equal(p.pending(1001), true);
    assert.equal(p.pending(1002), false);
    s.store(0);
    assert.equal(p.pending(1001), false);
    s.closed = true; // NATS away: held for the recovery
    p.publish('s', enc('e2'), 3, 1001);
    assert.equal(p.pending(1001), true);
    await until(() => s.acksWaiting === 1);
    s.ack();
    await p.idle();
    assert.equal(p.pending(1001), false);
  });

  test('waits until every event published so far is stored, not for those published after', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    let done = false;
    const whenDone = () => {
      done = false;
      return p.storedSoFar().then(() => (done = true));
    };
    await p.storedSoFar(); // nothing published yet
    p.publish('s', enc('e1'));
    p.publish('s', enc('e2'));
    const first = whenDone();
    p.publish('s', enc('e3')); // after: not waited for
    s.store(0);
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'e2 is not stored yet');
    s.store(1);
    await first;
    assert.equal(p.awaiting, true, 'e3 still awaited');
    // A skipped event, then held ones: waited for through the recovery's acknowledgements.
    p.publish('s', enc('e4'));
    s.store(3); // e3 skipped
    p.publish('s', enc('e5')); // held
    const second = whenDone();
    await until(() => s.acksWaiting === 1);
    s.ack(); // e3
    await until(() => s.acksWaiting === 1);
    assert.equal(done, false, 'e5 is held still');
    s.ack(); // e5
    await second;
    assert.deepEqual(s.stored, ['n:1', 'n:2', 'n:4', 'n:3', 'n:5']);
    // One being published again right now (NATS away): waited for too.
    s.closed = true;
    p.publish('s', enc('e6'));
    const third = whenDone();
    await until(() => s.acksWaiting === 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'e6 is being retried');
    s.ack();
    await third;
  });

  test('a publish that throws (connection closed) goes to the recovery', async () => {
    const s = new FakeStream();
    const p = publisherOn(s);
    s.closed = true;
    p.publish('s', enc('e1'));
    await until(() => s.acksWaiting === 1);
    s.ack();
    await p.idle();
    assert.deepEqual(s.stored, ['n:1']);
  });

  test('an event still failing after the retry window is dropped and counted', async () => {
    const s = new FakeStream();
    const p = publisherOn(s, { confirmTimeoutMs: 20, retryWindowMs: 150 });
    p.publish('s', enc('e1'));
    for (let i = 0; i < 20 && p.stats.lost === 0; i++) {
      await until(() => s.acksWaiting === 1 || p.stats.lost === 1);
      if (s.acksWaiting) s.failAck();
    }
    await p.idle();
    assert.equal(p.stats.lost, 1);
    assert.deepEqual(s.stored, []);
  });
});
