import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventJournal } from '../../../../../src/api/continuity/index.js';
import { SubscriptionIndex } from '../../../../../src/api/voice/events/subscriptions.js';
import {
  WebhookRegistry,
  type WebhookState,
} from '../../../../../src/api/voice/webhooks/webhook-registry.js';
import { VirtualClock } from '../../../../../src/core/clock.js';
import { type OwnershipChange, StaleEpochError } from '../../../../../src/core/cluster.js';
import { DomainError } from '../../../../../src/core/errors.js';
import type { Principal } from '../../../../../src/core/permissions.js';
import {
  FINISHED_KEPT,
  PRUNE_EVERY,
  type StoredWebhook,
  type WebhookStorePort,
} from '../../../../../src/core/webhooks.js';

/**
 * A cluster node's webhooks follow its tenants (docs/cluster.md, "Webhooks"): a node that lets a
 * tenant go forgets its webhooks from every index, so taking it up again lists and counts each
 * once (the count is the per-tenant cap's). Its writes and attempts are fenced by its lease: one
 * the database refuses stops the tenant's webhooks on that node before anything is sent.
 */
const carol = { id: 'ext:1001:102', username: '102@1001', tenantId: 1001, ext: '102' } as Principal;
const state: WebhookState = {
  url: 'http://127.0.0.1:9/a',
  secret: 's',
  accounts: { call: ['102'], presence: [], park: [] },
  failing: false,
  createdAt: 0,
};

const settings = {
  allowHttp: true,
  allowPrivate: true,
  timeoutMs: 1_000,
  retryWindowMs: 60_000,
  baseDelayMs: 5_000,
  maxDelayMs: 60_000,
};

/**
 * A registry on a cluster node that owns tenant 1001 under epoch 7, with webhook w1 stored (made
 * after event 6, unless `stored` says otherwise).
 */
async function clusterRegistry(
  store: Partial<WebhookStorePort> = {},
  w1: WebhookState = { ...state, after: 6 },
  ready: EventJournal['ready'] = async () => () => {},
) {
  const stored: StoredWebhook[] = [
    { id: 'w1', tenantId: 1001, owner: JSON.stringify(carol), state: JSON.stringify(w1) },
  ];
  /** The tenant's journal: events 5 and 6 on the account w1 and w2 follow, 4 on another. */
  const logged = [4, 5, 6].map((seq) => ({
    tenantId: 1001,
    seq,
    channel: 'voice',
    tags: [`call|${seq === 4 ? '103' : '102'}@1001`],
    body: `"event":"e${seq}"}`,
  }));
  const journal = {
    ready,
    since: (_t: number, after: number) => logged.filter((e) => e.seq > after),
    follow: () => {},
    unfollow: () => {},
    last: () => 4,
  } as unknown as EventJournal;
  const node = {
    owned: true,
    epoch: 7,
    changed: undefined as ((c: OwnershipChange) => Promise<void> | void) | undefined,
    errors: [] as string[],
    frames: 0,
  };
  const membership = {
    nodeId: 'a',
    clustered: true,
    owns: () => node.owned,
    epochOf: () => (node.owned ? node.epoch : undefined),
    onChange: (l: (c: OwnershipChange) => Promise<void> | void) => {
      node.changed = l;
      return () => {};
    },
  };
  const clock = new VirtualClock(0);
  const registry = new WebhookRegistry(
    {
      loadAll: async (tenantId) => ({
        webhooks: stored.filter((w) => tenantId === undefined || w.tenantId === tenantId),
        deliveries: [],
      }),
      saveWebhook: async () => {},
      changeWebhook: async (id, change) => {
        const w = stored.find((s) => s.id === id);
        const next = w && change(w.state);
        if (w && next !== undefined) w.state = next;
      },
      deleteWebhook: async () => {},
      saveDelivery: async () => {},
      assertLease: async () => {},
      clear: async () => {},
      ...store,
    },
    new SubscriptionIndex(),
    journal,
    clock,
    settings,
    { error: (_obj, msg) => node.errors.push(msg) },
    membership,
    { response: () => {}, frame: () => node.frames++ },
  );
  await registry.load();
  return { registry, node, clock, stored };
}

/** The fan-out gives w1 one event (what a presence event of its account renders to). */
const deliverOne = (registry: WebhookRegistry) =>
  registry.listOf(carol)[0]!.set.deliver('{"subscriptionSetId":"w1","sequence":3,"event":"dndOn"}');

/**
 * A store's delivery saves: the first (the new delivery's) held until `refuse`, then refused by
 * the lease fence; later ones pass.
 */
function firstSaveRefusedLater() {
  let refuse: (() => void) | undefined;
  const saveDelivery: WebhookStorePort['saveDelivery'] = (_d, lease) =>
    refuse
      ? Promise.resolve()
      : new Promise((_r, reject) => {
          refuse = () => reject(new StaleEpochError(lease!.tenantId, lease!.epoch));
        });
  return { saveDelivery, held: () => refuse !== undefined, refuse: () => refuse!() };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('a tenant let go and taken up again: its webhooks listed and counted once', async () => {
  const { registry, node } = await clusterRegistry();
  const seen = () => [registry.listOf(carol).map((h) => h.id), registry.countOf(1001)];
  assert.deepEqual(seen(), [['w1'], 1]);
  const before = registry.generation;
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 7 });
  assert.deepEqual(seen(), [[], 0], 'let go: neither listed nor counted');
  assert.ok(registry.generation > before, 'the kept reads of its webhooks are dropped');
  node.owned = true;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 8 });
  assert.deepEqual(seen(), [['w1'], 1], 'taken up again: listed and counted once');
  await registry.close();
});

test('a new delivery is stored under the lease before it is sent: a next owner sends it under the same id', async () => {
  const fences: unknown[] = [];
  let store = () => {};
  const { registry, node, clock } = await clusterRegistry({
    assertLease: async (lease) => void fences.push(['check', lease]),
    saveDelivery: (d, lease) => {
      fences.push([d.status, d.attempts.length, lease]);
      // The new delivery's write is slow; later ones are not.
      return fences.length === 1 ? new Promise<void>((r) => (store = r)) : Promise.resolve();
    },
  });
  deliverOne(registry);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(node.frames, 0, 'nothing is sent before the delivery is stored');
  store();
  await until(() => node.frames === 1, 'the attempt');
  await until(() => fences.length === 2, 'the failed try stored');
  const lease = { tenantId: 1001, nodeId: 'a', epoch: 7 };
  assert.deepEqual(fences.slice(0, 2), [
    ['pending', 0, lease],
    ['pending', 1, lease],
  ]);
  // The first try failed (nothing listens there); its retry waits for the database's check.
  clock.advance(settings.maxDelayMs);
  await until(() => node.frames === 2, 'the retry');
  assert.deepEqual(fences[2], ['check', lease]);
  await registry.close();
});

test('the lease refused before a retry: nothing more is sent, and the tenant’s webhooks stop here', async () => {
  let saves = 0;
  const { registry, node, clock } = await clusterRegistry({
    assertLease: async (lease) => {
      throw new StaleEpochError(lease.tenantId, lease.epoch);
    },
    saveDelivery: async () => void saves++,
  });
  deliverOne(registry);
  // The first try (after its stored write) fails: nothing listens there; its retry is then due.
  await until(() => saves === 2, 'the failed first try stored');
  assert.equal(node.frames, 1);
  clock.advance(settings.maxDelayMs);
  await until(() => registry.listOf(carol).length === 0, 'the webhooks stopped');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(node.frames, 1, 'the retry did not leave this node');
  assert.equal(registry.countOf(1001), 0);
  assert.ok(node.errors.includes('webhooks stopped here: the lease is lost'), JSON.stringify(node.errors));
  await registry.close();
});

test('a new delivery’s write refused by the lease fence: the tenant’s webhooks stop, nothing is sent', async () => {
  const { registry, node } = await clusterRegistry({
    saveDelivery: async (_d, lease) => {
      throw new StaleEpochError(lease!.tenantId, lease!.epoch);
    },
  });
  deliverOne(registry);
  await until(() => registry.listOf(carol).length === 0, 'the webhooks stopped');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(node.frames, 0, 'the webhook stopped before its attempt went out');
  await registry.close();
});

test('a first save refused after the lease ran out (its loss not announced yet): nothing is sent', async () => {
  const save = firstSaveRefusedLater();
  const { registry, node } = await clusterRegistry({ saveDelivery: save.saveDelivery });
  deliverOne(registry);
  await until(save.held, 'the save');
  // The lease's deadline passed here (epochOf answers none); the loss is not announced yet.
  node.owned = false;
  save.refuse();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(node.frames, 0, 'a delivery not stored is not sent');
  await registry.close();
});

test('a refusal under an epoch the node no longer holds leaves a newer lease’s webhooks alone', async () => {
  const save = firstSaveRefusedLater();
  const { registry, node } = await clusterRegistry({ saveDelivery: save.saveDelivery });
  deliverOne(registry);
  await until(save.held, 'the write');
  // Meanwhile the node lost the tenant and took it again under epoch 8; then epoch 7's write fails.
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 7 });
  node.owned = true;
  node.epoch = 8;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 8 });
  save.refuse();
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(
    registry.listOf(carol).map((h) => h.id),
    ['w1'],
  );
  assert.deepEqual(node.errors, []);
  await registry.close();
});

test('a retry due after the lease was lost, before the loss is announced: not sent, nothing written', async () => {
  const writes: string[] = [];
  const { registry, node, clock } = await clusterRegistry({
    saveDelivery: async (d, lease) => void writes.push(`${d.status} ${d.attempts.length} ${lease?.epoch}`),
  });
  deliverOne(registry);
  // The first try fails (nothing listens there) and waits for its retry on the server's clock.
  await until(() => writes.length === 2, 'the failed try stored');
  assert.deepEqual(writes, ['pending 0 7', 'pending 1 7']);
  node.owned = false; // the lease is gone here; the membership has not announced it yet
  clock.advance(settings.maxDelayMs);
  await until(() => registry.listOf(carol).length === 0, 'the webhook stopped');
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(node.frames, 1, 'the retry was not sent');
  assert.equal(writes.length, 2, 'nothing written without the lease');
  await registry.close();
});

const ownerUnavailable = (e: unknown) =>
  e instanceof DomainError && e.kind === 'unavailable' && e.code === 'OWNER_UNAVAILABLE';

test('a client’s own change is stored under the lease before it is answered', async () => {
  const saved: [string, number | undefined][] = [];
  let stored = () => {};
  const { registry } = await clusterRegistry({
    saveWebhook: (w, lease) =>
      new Promise<void>((resolve) => {
        stored = () => {
          saved.push([JSON.parse(w.state).secret as string, lease?.epoch]);
          resolve();
        };
      }),
  });
  let answered = false;
  const rotated = registry.rotate(registry.listOf(carol)[0]!, 'new').then(() => (answered = true));
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(answered, false, 'not answered before it is stored');
  stored();
  await rotated;
  assert.deepEqual(saved, [['new', 7]]);
  await registry.close();
});

test('a client’s change on a node whose lease went (a handover): refused, and the tenant’s webhooks stop here', async () => {
  const deleted: string[] = [];
  const { registry, node } = await clusterRegistry({
    saveWebhook: async (_w, lease) => {
      throw new StaleEpochError(1001, lease!.epoch);
    },
    deleteWebhook: async (id, lease) => {
      if (lease?.epoch === 7) throw new StaleEpochError(1001, 7);
      deleted.push(id);
    },
  });
  const hook = registry.listOf(carol)[0]!;
  await assert.rejects(registry.rotate(hook, 'new'), ownerUnavailable);
  assert.deepEqual(registry.listOf(carol), [], 'the webhooks stopped here: the new owner has them');
  assert.deepEqual(node.errors, ['webhooks stopped here: the lease is lost']);

  // Taken up again; a delete under an epoch the database no longer holds is refused too.
  node.epoch = 8;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 8 });
  const again = registry.listOf(carol)[0]!;
  node.epoch = 7;
  await assert.rejects(registry.delete(again), ownerUnavailable);
  assert.deepEqual(deleted, []);

  node.epoch = 9;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 9 });
  await assert.rejects(
    registry.create(1001, carol, { ...state, createdAt: 1 }),
    ownerUnavailable,
    'made under a lease the database refuses',
  );
  assert.deepEqual(registry.listOf(carol), []);
  await registry.close();
});

test('a webhook is not made on a node that does not run its tenant: the client is asked to retry', async () => {
  const { registry, node } = await clusterRegistry();
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 7 });
  await assert.rejects(registry.create(1001, carol, { ...state, createdAt: 1 }), ownerUnavailable);
  assert.deepEqual(registry.listOf(carol), []);
  await registry.close();
});

test('a tenant that fails to be taken up does not stop the next ones', async () => {
  let fail = true;
  const w1: StoredWebhook = {
    id: 'w1',
    tenantId: 1001,
    owner: JSON.stringify(carol),
    state: JSON.stringify(state),
  };
  const { registry, node } = await clusterRegistry({
    loadAll: async (tenantId) => {
      if (fail && tenantId === 1001) throw new Error('database down');
      return { webhooks: [w1], deliveries: [] };
    },
  });
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 7 });
  node.owned = true;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 8 });
  assert.ok(
    node.errors.includes('webhooks: taking a tenant up or letting it go failed'),
    JSON.stringify(node.errors),
  );
  fail = false;
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 8 });
  node.owned = true;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 9 });
  assert.deepEqual(
    registry.listOf(carol).map((h) => h.id),
    ['w1'],
  );
  await registry.close();
});

test('a take-up whose database read failed is tried again while the node owns the tenant', async () => {
  let reads = 0;
  const w1: StoredWebhook = {
    id: 'w1',
    tenantId: 1001,
    owner: JSON.stringify(carol),
    state: JSON.stringify({ ...state, after: 6 }),
  };
  const { registry } = await clusterRegistry({
    loadAll: async (tenantId) => {
      // The load at start (every tenant's) answers; the take-up's first read does not.
      if (tenantId !== undefined && ++reads === 1) throw new Error('database down');
      return { webhooks: [w1], deliveries: [] };
    },
  });
  assert.deepEqual(registry.listOf(carol), [], 'the first take-up failed');
  await until(() => registry.listOf(carol).length === 1, 'the take-up tried again');
  assert.equal(reads, 2);
  assert.equal(registry.countOf(1001), 1);
  await registry.close();
});

test('a take-up whose read-back of the stream failed is tried again, and reads the events back then', async () => {
  let readBacks = 0;
  const { registry, node } = await clusterRegistry({}, { ...state, after: 4 }, async (_cursors, strict) => {
    assert.equal(strict, true, 'a take-up asks to hear of a failed read-back');
    if (++readBacks === 1) throw new Error('the event stream answered nothing');
    return () => {};
  });
  assert.deepEqual(registry.listOf(carol), [], 'the first take-up failed');
  await until(() => node.frames === 1, 'the take-up tried again, its read-back delivered');
  assert.equal(readBacks, 2);
  assert.deepEqual(
    registry
      .listOf(carol)[0]!
      .queue.pending.map((d) => (JSON.parse(d.body) as { sequence: number }).sequence),
    [5, 6],
  );
  await registry.close();
});

test('before the store forgets old deliveries, the latest sequence queued is kept in the webhook', async () => {
  const positions: number[] = [];
  const { registry, node, clock, stored } = await clusterRegistry({
    saveDelivery: async (d) => void positions.push(d.position),
  });
  const after = () => (JSON.parse(stored[0]!.state) as WebhookState).after;
  const hook = registry.listOf(carol)[0]!;
  // Redeliveries had pushed the queue on: the next delivery finishes at a prune point.
  hook.queue.nextPosition = PRUNE_EVERY;
  hook.set.deliver('{"subscriptionSetId":"w1","sequence":9,"event":"dndOn"}');
  await until(() => positions.length === 2, 'the failed first try stored (its retry is due)');
  assert.equal(node.frames, 1);
  assert.equal(after(), 6, 'not at a prune point yet');
  clock.advance(70_000); // its retry fails past the retry window: finished (failed)
  await until(() => hook.queue.finished.length === 1, 'the delivery given up');
  await until(() => after() === 9, 'the latest sequence kept');
  await until(() => positions.length === 3, 'the finished delivery stored, after the point');
  await registry.close();
});

test('a webhook taken up with more finished deliveries stored than its log shows lists the newest', async () => {
  const w1: StoredWebhook = {
    id: 'w1',
    tenantId: 1001,
    owner: JSON.stringify(carol),
    state: JSON.stringify({ ...state, after: 6 }),
  };
  const deliveries = Array.from({ length: FINISHED_KEPT + 19 }, (_, i) => ({
    id: `d${i + 1}`,
    webhookId: 'w1',
    position: i + 1,
    body: '{}',
    status: 'delivered' as const,
    attempts: [],
  }));
  const { registry } = await clusterRegistry({ loadAll: async () => ({ webhooks: [w1], deliveries }) });
  const finished = registry.listOf(carol)[0]!.queue.finished;
  assert.equal(finished.length, FINISHED_KEPT);
  assert.equal(finished[0]!.position, 20, 'the oldest ones are not listed');
  assert.equal(finished.at(-1)!.position, FINISHED_KEPT + 19);
  await registry.close();
});

test('a webhook stored without its cursor (an older release) gets one at its first takeover, for the next', async () => {
  const { registry, node, stored } = await clusterRegistry({}, state);
  const after = () => (JSON.parse(stored[0]!.state) as WebhookState).after;
  await until(() => after() !== undefined, 'the cursor stored');
  assert.equal(after(), 4, "the tenant's last sequence when it was taken up");
  assert.equal(node.frames, 0, 'nothing to read back the first time');
  // The next owner (here: this node again, under a new epoch) reads back the events after it.
  node.owned = false;
  await node.changed!({ tenantId: 1001, owned: false, epoch: 7 });
  node.owned = true;
  await node.changed!({ tenantId: 1001, owned: true, epoch: 8 });
  await until(() => node.frames === 1, 'the read-back attempted');
  assert.deepEqual(
    registry
      .listOf(carol)[0]!
      .queue.pending.map((d) => (JSON.parse(d.body) as { sequence: number }).sequence),
    [5, 6],
  );
  assert.deepEqual(node.errors, []);
  await registry.close();
});
