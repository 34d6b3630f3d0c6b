/**
 * The owner's wait for its own takeover (src/cluster/forwarding.ts `takingOver`): a tenant's
 * request waits while the membership takes the tenant over, within its bounds, and is refused
 * with 503 `OWNER_UNAVAILABLE` when the takeover outlasts them or the tenant was lost meanwhile.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { Forwarding } from '../../../src/cluster/forwarding.js';
import type { Membership } from '../../../src/core/cluster.js';
import { DomainError } from '../../../src/core/errors.js';

function forwarding(
  taking: Promise<void> | undefined,
  owns: () => boolean,
  bounds: { settleMs: number; timeoutMs?: number },
) {
  const membership = {
    nodeId: 'n1',
    clustered: true,
    owns,
    ownerOf: () => 'n1',
    epochOf: () => 1,
    onChange: () => () => {},
    takingOver: (t: number) => (t === 1001 ? taking : undefined),
  } satisfies Membership;
  return new Forwarding({
    nats: {} as NatsConnection, // not used by takingOver
    prefix: 'sb.test',
    membership,
    log: pino({ level: 'silent' }),
    ...bounds,
  });
}

const ownerUnavailable = (e: unknown) =>
  e instanceof DomainError && e.kind === 'unavailable' && e.code === 'OWNER_UNAVAILABLE';

test('no takeover under way: nothing to wait for', () => {
  assert.equal(forwarding(undefined, () => true, { settleMs: 50 }).takingOver(1001), undefined);
  assert.equal(forwarding(Promise.resolve(), () => true, { settleMs: 50 }).takingOver(1002), undefined);
});

test('a takeover that ends in time: the request goes on', async () => {
  let done!: () => void;
  const f = forwarding(new Promise<void>((r) => (done = r)), () => true, { settleMs: 5_000 });
  const wait = f.takingOver(1001)!;
  setTimeout(done, 20);
  await wait;
});

test('a takeover that outlasts the settle time: 503, to retry', async () => {
  const f = forwarding(new Promise<void>(() => {}), () => true, { settleMs: 50 });
  await assert.rejects(f.takingOver(1001)!, ownerUnavailable);
});

// Without the time-out's bound the wait would last the whole minute of settle time.
test(
  'the wait ends a second before a forwarding node would give up on the answer',
  { timeout: 20_000 },
  async () => {
    const f = forwarding(new Promise<void>(() => {}), () => true, { settleMs: 60_000, timeoutMs: 1_050 });
    await assert.rejects(f.takingOver(1001)!, ownerUnavailable);
  },
);

test('the tenant lost while it was being taken over: 503, not run here', async () => {
  let owned = true;
  let done!: () => void;
  const f = forwarding(new Promise<void>((r) => (done = r)), () => owned, { settleMs: 5_000 });
  const wait = f.takingOver(1001)!;
  owned = false;
  done();
  await assert.rejects(wait, ownerUnavailable);
});
