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

/**
 * A stream holding tenant 1001's events at `held` (stream sequences, removed from as the test
 * says), its per-tenant limit `limit` now; fetches answer `batches`, each then calls `fetched`.
 */
function reader(
  held: number[],
  batches: number[][],
  o: { limit?: number; limitAtStart?: number; fetched?: (i: number) => void } = {},
) {
  const jsm = {
    direct: {
      getMessage: async (_s: string, q: { seq: number }) => {
        const seq = held.find((s) => s >= q.seq);
        return seq === undefined ? null : { seq };
      },
    },
    streams: {
      info: async () => ({
        config: { max_msgs_per_subject: o.limit ?? 100 },
        state: { first_seq: 1, subjects: { [names.subjectOf(1001)]: held.length } },
      }),
    },
  } as unknown as JetStreamManager;
  let fetches = 0;
  const js = {
    consumers: {
      get: async () => ({
        fetch: async () => {
          const i = fetches++;
          const batch = batches[i] ?? [];
          return (async function* () {
            for (const seq of batch)
              yield { seq, data: event(seq), info: { pending: held.filter((s) => s > seq).length } };
            o.fetched?.(i);
          })();
        },
        delete: async () => true,
      }),
    },
  } as unknown as JetStreamClient;
  return new EventReader(js, jsm, names, o.limitAtStart);
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

test('events removed between two fetches of one read (the limit at work): not held, never a gap', async () => {
  const held = [4, 5, 6, 7, 8];
  // After the first fetch, new events pushed the range's oldest out (5 was never read).
  const r = reader(held, [[4], [6, 7, 8]], { fetched: (i) => i === 0 && held.splice(0, 2) });
  assert.equal(await r.read(1001, 3, 8), undefined);
});

test('a per-tenant limit raised since this node started: the count is judged by the lower one', async () => {
  // Tenant 1001 has 20 events left, all after the cursor's next: 20 is below the stream's 500
  // now, but the 20 this node started with removed the ones between.
  const held = Array.from({ length: 20 }, (_, i) => 50 + i);
  const batches = [held];
  assert.equal(await reader(held, batches, { limit: 500, limitAtStart: 20 }).read(1001, 3, 69), undefined);
  assert.equal(
    (await reader(held, batches, { limit: 500, limitAtStart: 500 }).read(1001, 3, 69))?.length,
    20,
    'a tenant below a limit that was never lower is whole',
  );
});
