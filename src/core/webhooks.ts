/** What the webhook store keeps (docs/events.md, "Webhooks"); shapes of storage, not of the wire. */
import type { TenantLease } from './cluster.js';

export interface WebhookAttempt {
  /** Epoch ms on the server's clock. */
  at: number;
  /** The receiver's status code; absent when no answer came. */
  statusCode?: number;
  latencyMs: number;
  /** Why the attempt failed (`timeout`, `refused`, `status 500`, ...); absent on success. */
  error?: string;
}

/**
 * Finished deliveries a webhook's log shows (older ones are forgotten, in memory and, a few
 * deliveries later, in the store: `PRUNE_EVERY`).
 */
export const FINISHED_KEPT = 100;
/** The store forgets a webhook's older finished deliveries when one at a multiple of this finishes. */
export const PRUNE_EVERY = 20;

/** Whether storing `d` as it is now also forgets its webhook's older finished deliveries. */
export function prunesWith(d: Pick<StoredDelivery, 'status' | 'position'>): boolean {
  return d.status !== 'pending' && d.position % PRUNE_EVERY === 0;
}

export interface StoredDelivery {
  id: string;
  webhookId: string;
  /** Order within the webhook: deliveries go out in increasing position. */
  position: number;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
}

export interface StoredWebhook {
  id: string;
  tenantId: number;
  /** The creator's principal, as JSON. */
  owner: string;
  /** The registration as JSON (url, secret, accounts, failing). */
  state: string;
}

/**
 * Where webhooks and their delivery queues are kept, so they outlive a restart. A write given a
 * lease is fenced by it (docs/cluster.md, "Webhooks"): refused with `StaleEpochError`, writing
 * nothing, unless the lease is still the tenant's current one; a write under epoch 0 (a
 * standalone server) or without a lease is not checked.
 */
export interface WebhookStorePort {
  /** Every webhook and delivery, in delivery order; with `tenantId`, that tenant's only. */
  loadAll(tenantId?: number): Promise<{ webhooks: StoredWebhook[]; deliveries: StoredDelivery[] }>;
  saveWebhook(w: StoredWebhook, lease?: TenantLease): Promise<void>;
  /**
   * The owner's change of a stored webhook's state (its failing mark, its making point): read and
   * written in one transaction under the lease, so a client's change made meanwhile (a rotation,
   * another node's) is kept, and a webhook deleted meanwhile stays deleted. Nothing is written
   * when `change` answers undefined.
   */
  changeWebhook(id: string, change: (state: string) => string | undefined, lease: TenantLease): Promise<void>;
  /** Deletes the webhook and its deliveries; under `lease` (a cluster's), only while it holds. */
  deleteWebhook(id: string, lease?: TenantLease): Promise<void>;
  /**
   * Stores the delivery as it is now. One that `prunesWith` (finished, at a position that is a
   * multiple of `PRUNE_EVERY`) also deletes the webhook's finished deliveries `FINISHED_KEPT` or
   * more positions before it: a webhook's stored history stays bounded, and so does a takeover's
   * load of it.
   */
  saveDelivery(d: StoredDelivery, lease?: TenantLease): Promise<void>;
  /** Resolves while the lease is the tenant's current one; rejects with `StaleEpochError` else. */
  assertLease(lease: TenantLease): Promise<void>;
  clear(): Promise<void>;
}
