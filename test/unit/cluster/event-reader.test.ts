import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { encodeEvent } from '../../../src/cluster/event-codec.js';
import { EventReader } from '../../../src/cluster/event-reader.js';
import { eventStreamNames } from '../../../src/cluster/event-stream.js';

/**
 * A read-back that comes back short is never handed on as whole (src/cluster/event-reader.ts):
 * the stream's answers here are a fake's, so each way of coming back short can be made at will.
 * The real stream's read-back and its retention checks are in jetstream-bus.test.ts.
 */
const names = eventStreamNames('t');
const event = (i: number) =>
  encodeEvent({ type: 'presence', name: 'dndOn', tenantId: 1001, observed: `${i}@1001`, at: i });

/** A stream holding tenant 1001's events at `held` (stream sequences); fetches answer `batches`. */
function reader(held: number[], batches: number[][]) {
  const jsm = {
    direct: {
      getMessage: async (_s: string, q: { seq: number }) => {
        const seq = held.find((s) => s >= q.seq);
        return seq === undefined ? null : { seq };
      },
    },
    streams: {
      info: async () => ({
        config: { max_msgs_per_subject: 100 },
        state: { first_seq: 1, subjects: { [names.subjectOf(1001)]: held.length } },
      }),
    },
  } as unknown as JetStreamManager;
  let fetches = 0;
  const js = {
    consumers: {
      get: async () => ({
        fetch: async () => {
          const batch = batches[fetches++] ?? [];
          return (async function* () {
            for (const seq of batch)
              yield { seq, data: event(seq), info: { pending: held.filter((s) => s > seq).length } };
          })();
        },
        delete: async () => true,
      }),
    },
  } as unknown as JetStreamClient;
  return new EventReader(js, jsm, names);
}

test('a fetch that answers nothing before the range is read: the read fails, not a short answer', async () => {
  const r = reader([4, 5, 6, 7], [[4, 5]]);
  await assert.rejects(r.read(1001, 3, 7), /answered nothing after 5 \(up to 7\)/);
});

test('the range’s first event removed while the read began: not held (a gap is never handed on)', async () => {
  // The direct get saw 4; by the time the consumer started, the limits had removed it.
  const r = reader([4, 5, 6, 7], [[5, 6, 7]]);
  assert.equal(await r.read(1001, 3, 7), undefined);
});

test('a whole range comes back whole', async () => {
  const r = reader(
    [4, 5, 6, 7],
    [
      [4, 5],
      [6, 7],
    ],
  );
  assert.deepEqual(
    (await r.read(1001, 3, 7))?.map((x) => x.seq),
    [4, 5, 6, 7],
  );
});
