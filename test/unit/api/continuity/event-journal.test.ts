import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pino from 'pino';
import { EventJournal } from '../../../../src/api/continuity/event-journal.js';
import type { PlatformEvent } from '../../../../src/api/platform-events.js';
import type { EventStreamSource } from '../../../../src/core/event-stream.js';
import { openDatabase } from '../../../../src/store/database.js';
import { SqlEventLog } from '../../../../src/store/event-log.js';
import { dropSchemas, testTargets } from '../../../helpers/databases.js';

after(dropSchemas);

const log = pino({ level: 'silent' });
const OPTIONS = { retentionEvents: 100, retentionBytes: 1_000_000 };

const dnd = (tenantId: number, i: number): PlatformEvent => ({
  type: 'presence',
  name: i % 2 ? 'dndOff' : 'dndOn',
  tenantId,
  observed: `102@${tenantId}`,
  at: i,
});

async function journalOn(port: SqlEventLog, options = OPTIONS) {
  const j = await EventJournal.open(port, options, log);
  j.addRenderer((e) =>
    e.type === 'presence'
      ? { channel: 'voice', tags: [`presence|${e.observed}`], body: `"n":${e.at}}` }
      : null,
  );
  return j;
}

/** Publishes events and answers the sequences the journal gave them. */
function emit(j: EventJournal, tenantId: number, from: number, n: number): (number | undefined)[] {
  const seqs: (number | undefined)[] = [];
  for (let i = from; i < from + n; i++) {
    const e = dnd(tenantId, i);
    j.onEvent(e);
    seqs.push(j.sequenceOf(e));
  }
  return seqs;
}

for (const { name, target } of testTargets()) {
  describe(`event journal on ${name}`, () => {
    test('only followed tenants are sequenced; sequences increase from 1', async () => {
      const db = await openDatabase(target());
      const j = await journalOn(new SqlEventLog(db));
      assert.deepEqual(emit(j, 1001, 0, 2), [undefined, undefined]);
      assert.equal(j.last(1001), 0);
      j.follow(1001);
      assert.deepEqual(emit(j, 1001, 2, 3), [1, 2, 3]);
      assert.deepEqual(emit(j, 1002, 0, 1), [undefined], 'another tenant is not followed');
      assert.deepEqual(
        j.since(1001, 1)!.map((e) => e.seq),
        [2, 3],
      );
      assert.equal(j.since(1001, 4), undefined, 'a sequence not yet issued');
      await j.close();
      await db.close();
    });

    test('a clean restart keeps the stream: resume across it, and the sequence goes on', async () => {
      const t = target();
      let db = await openDatabase(t);
      let j = await journalOn(new SqlEventLog(db));
      j.follow(1001);
      emit(j, 1001, 0, 5);
      await j.close();
      await db.close();
      db = await openDatabase(t);
      j = await journalOn(new SqlEventLog(db));
      j.follow(1001);
      assert.deepEqual(
        j.since(1001, 2)!.map((e) => [e.seq, e.body]),
        [
          [3, '"n":2}'],
          [4, '"n":3}'],
          [5, '"n":4}'],
        ],
      );
      assert.deepEqual(emit(j, 1001, 5, 1), [6]);
      await j.close();
      await db.close();
    });

    test('after a crash no sequence is issued twice, and no resume spans the crash', async () => {
      const t = target();
      const db = await openDatabase(t);
      const port = new SqlEventLog(db);
      const crashed = await journalOn(port);
      crashed.follow(1001);
      const before = emit(crashed, 1001, 0, 4) as number[];
      await crashed.flush(); // written, but never closed: as a killed process leaves it
      const restarted = await journalOn(port);
      restarted.follow(1001);
      assert.equal(restarted.since(1001, before.at(-1)!), undefined, 'the last events may be lost');
      const [next] = emit(restarted, 1001, 4, 1);
      assert.ok(next! > before.at(-1)!, `${next} after ${before}`);
      assert.deepEqual(
        restarted.since(1001, next! - 1)!.map((e) => e.seq),
        [next],
      );
      await restarted.close();
      await db.close();
    });

    test('retention in events and in bytes: older events are gone and a resume from them fails', async () => {
      const db = await openDatabase(target());
      const j = await journalOn(new SqlEventLog(db), { retentionEvents: 3, retentionBytes: 1_000_000 });
      j.follow(1001);
      emit(j, 1001, 0, 6);
      assert.equal(j.since(1001, 2), undefined);
      assert.deepEqual(
        j.since(1001, 3)!.map((e) => e.seq),
        [4, 5, 6],
      );
      const small = await journalOn(new SqlEventLog(db), { retentionEvents: 100, retentionBytes: 100 });
      small.follow(1002);
      emit(small, 1002, 0, 10);
      const kept = small.since(1002, 10);
      assert.deepEqual(kept, []);
      const first = [...Array(10).keys()]
        .map((i) => i + 1)
        .find((seq) => small.since(1002, seq - 1) !== undefined)!;
      assert.ok(first > 1 && first <= 10, `the oldest events were evicted (kept from ${first})`);
      await j.close();
      await small.close();
      await db.close();
    });
  });
}

/** A cluster's event stream, in memory: what was published, each with its stream sequence. */
class FakeStream implements EventStreamSource<PlatformEvent> {
  readonly events: { seq: number; event: PlatformEvent }[] = [];
  handed = 0;
  /** The sequences the stream no longer holds (its limits removed them). */
  removedBelow = 0;
  reads = 0;
  constructor(private readonly journal: () => EventJournal) {}
  /** Publishes and hands the events to the journal, as the node's bus does. */
  publish(...es: PlatformEvent[]): number[] {
    return es.map((event) => {
      const seq = this.events.length + 1;
      this.events.push({ seq, event });
      this.handed = seq;
      this.journal().onEvent(event, seq);
      return seq;
    });
  }
  /** Published but not handed to this node yet (another node's journal, say). */
  publishElsewhere(...es: PlatformEvent[]): void {
    for (const event of es) this.events.push({ seq: this.events.length + 1, event });
  }
  position() {
    return this.handed;
  }
  /** What `publish` stores is in at once. */
  async stored() {
    return true;
  }
  async caughtUp() {
    for (const { seq, event } of this.events) {
      if (seq <= this.handed) continue;
      this.handed = seq;
      this.journal().onEvent(event, seq);
    }
    return true;
  }
  async read(tenantId: number, after: number, upTo: number) {
    this.reads++;
    if (after + 1 < this.removedBelow) return undefined;
    return this.events.filter((x) => x.event.tenantId === tenantId && x.seq > after && x.seq <= upTo);
  }
}

function overStream(options = OPTIONS) {
  const stream = new FakeStream(() => j);
  stream.publishElsewhere(dnd(1001, 0), dnd(1002, 0));
  stream.handed = 2; // the node started consuming after these
  const j = EventJournal.overStream(stream, options, log);
  j.addRenderer((e) =>
    e.type === 'presence'
      ? { channel: 'voice', tags: [`presence|${e.observed}`], body: `"n":${e.at}}` }
      : null,
  );
  return { j, stream };
}

describe('event journal over a cluster stream', () => {
  test('takes the stream’s sequences; a session starts at the node’s position', () => {
    const { j, stream } = overStream();
    assert.equal(j.clustered, true);
    assert.equal(j.last(1001), 2, 'the position, for any tenant');
    j.follow(1001);
    const [a, , c] = stream.publish(dnd(1001, 1), dnd(1002, 1), dnd(1001, 2));
    assert.deepEqual(
      j.since(1001, 2)!.map((e) => e.seq),
      [a, c],
    );
    assert.deepEqual(
      j.since(1001, a!)!.map((e) => e.seq),
      [c],
    );
    assert.equal(j.last(1003), 5);
    assert.deepEqual(j.since(1003, 5), [], 'a tenant without events since the start');
    assert.equal(j.since(1001, 6), undefined, 'after the position: not yet issued');
    assert.equal(j.since(1001, 1), undefined, 'before this node began: not kept here');
  });

  test('an unfollowed tenant’s events are not kept, so a resume from before them needs a read-back', async () => {
    const { j, stream } = overStream();
    const [first] = stream.publish(dnd(1001, 1), dnd(1001, 2));
    assert.equal(j.since(1001, first! - 1), undefined);
    stream.publishElsewhere(dnd(1001, 3));
    const release = await j.ready([{ tenantId: 1001, after: 2 }]);
    assert.deepEqual(
      j.since(1001, 2)!.map((e) => [e.seq, e.body]),
      [
        [3, '"n":1}'],
        [4, '"n":2}'],
        [5, '"n":3}'],
      ],
      'read back, then caught up, in order',
    );
    // Followed until released: live events are kept after the ones read back.
    stream.publish(dnd(1001, 4));
    assert.deepEqual(
      j.since(1001, 4)!.map((e) => e.seq),
      [5, 6],
    );
    release();
    release();
    stream.publish(dnd(1001, 5));
    assert.equal(j.since(1001, 4), undefined, 'released: later events are not kept');
  });

  test('a tenant followed, let go of, then resumed after events it did not keep: each once, in order', async () => {
    const { j, stream } = overStream();
    j.follow(1001);
    const [a, b] = stream.publish(dnd(1001, 1), dnd(1001, 2)); // kept while followed
    j.unfollow(1001);
    const [c, d] = stream.publish(dnd(1001, 3), dnd(1001, 4)); // not kept
    await (
      await j.ready([{ tenantId: 1001, after: b! }])
    )();
    assert.deepEqual(
      j.since(1001, b!)!.map((e) => e.seq),
      [c, d],
      'the events after the cursor, read back',
    );
    await (
      await j.ready([{ tenantId: 1001, after: a! - 1 }])
    )();
    assert.deepEqual(
      j.since(1001, a! - 1)!.map((e) => e.seq),
      [a, b, c, d],
      'from before: each once, in order',
    );
  });

  test('no read-back when the node kept the events; a stream that lost them fails the resume', async () => {
    const { j, stream } = overStream();
    j.follow(1001);
    stream.publish(dnd(1001, 1), dnd(1001, 2));
    await (
      await j.ready([{ tenantId: 1001, after: 2 }])
    )();
    assert.equal(stream.reads, 0);
    const other = overStream();
    other.stream.publish(dnd(1002, 1));
    other.stream.removedBelow = 2;
    await other.j.ready([{ tenantId: 1002, after: 0 }]);
    assert.equal(other.j.since(1002, 0), undefined, 'retention, never a silent gap');
  });

  test('what is read back counts against the retention bounds', async () => {
    const { j, stream } = overStream({ retentionEvents: 3, retentionBytes: 1_000_000 });
    stream.publish(dnd(1001, 1), dnd(1001, 2), dnd(1001, 3), dnd(1001, 4));
    await j.ready([{ tenantId: 1001, after: 2 }]);
    assert.equal(j.since(1001, 2), undefined, 'four events after the cursor, three kept');
    assert.deepEqual(
      j.since(1001, 3)!.map((e) => e.seq),
      [4, 5, 6],
    );
  });
});
