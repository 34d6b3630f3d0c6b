import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventJournal } from '../../../../../src/api/continuity/index.js';
import { SubscriptionIndex } from '../../../../../src/api/voice/events/subscriptions.js';
import {
  WebhookRegistry,
  type WebhookState,
} from '../../../../../src/api/voice/webhooks/webhook-registry.js';
import { VirtualClock } from '../../../../../src/core/clock.js';
import type { OwnershipChange } from '../../../../../src/core/cluster.js';
import type { Principal } from '../../../../../src/core/permissions.js';
import type { StoredWebhook, WebhookStorePort } from '../../../../../src/core/webhooks.js';

/**
 * A cluster node's webhooks follow its tenants (docs/cluster.md, "Events"): a node that lets a
 * tenant go forgets its webhooks from every index, so taking it up again lists and counts each
 * once (the count is the per-tenant cap's).
 */
const carol = { id: 'ext:1001:102', username: '102@1001', tenantId: 1001, ext: '102' } as Principal;
const state: WebhookState = {
  url: 'https://hooks.example/a',
  secret: 's',
  accounts: { call: ['102'], presence: [], park: [] },
  failing: false,
  createdAt: 0,
};

test('a tenant let go and taken up again: its webhooks listed and counted once', async () => {
  const stored: StoredWebhook[] = [
    { id: 'w1', tenantId: 1001, owner: JSON.stringify(carol), state: JSON.stringify(state) },
  ];
  const store: WebhookStorePort = {
    loadAll: async (tenantId) => ({
      webhooks: stored.filter((w) => tenantId === undefined || w.tenantId === tenantId),
      deliveries: [],
    }),
    saveWebhook: async () => {},
    deleteWebhook: async () => {},
    saveDelivery: async () => {},
    clear: async () => {},
  };
  const journal = {
    ready: async () => () => {},
    since: () => [],
    follow: () => {},
    unfollow: () => {},
  } as unknown as EventJournal;
  let owned = true;
  let changed: ((c: OwnershipChange) => Promise<void> | void) | undefined;
  const membership = {
    clustered: true,
    owns: () => owned,
    onChange: (l: (c: OwnershipChange) => Promise<void> | void) => {
      changed = l;
      return () => {};
    },
  };
  const settings = {
    allowHttp: true,
    allowPrivate: true,
    timeoutMs: 1_000,
    retryWindowMs: 60_000,
    baseDelayMs: 5_000,
    maxDelayMs: 60_000,
  };
  const log = { error: () => {} };
  const registry = new WebhookRegistry(
    store,
    new SubscriptionIndex(),
    journal,
    new VirtualClock(0),
    settings,
    log,
    membership,
  );
  await registry.load();
  const seen = () => [registry.listOf(carol).map((h) => h.id), registry.countOf(1001)];
  assert.deepEqual(seen(), [['w1'], 1]);
  const before = registry.generation;
  owned = false;
  await changed!({ tenantId: 1001, owned: false, epoch: 1 });
  assert.deepEqual(seen(), [[], 0], 'let go: neither listed nor counted');
  assert.ok(registry.generation > before, 'the kept reads of its webhooks are dropped');
  owned = true;
  await changed!({ tenantId: 1001, owned: true, epoch: 2 });
  assert.deepEqual(seen(), [['w1'], 1], 'taken up again: listed and counted once');
  await registry.close();
});
