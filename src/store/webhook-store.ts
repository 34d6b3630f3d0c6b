import type { Kysely } from 'kysely';
import type { TenantLease } from '../core/cluster.js';
import {
  FINISHED_KEPT,
  prunesWith,
  type StoredDelivery,
  type StoredWebhook,
  type WebhookStorePort,
} from '../core/webhooks.js';
import type { Db } from './database.js';
import { assertEpoch } from './lease-fence.js';
import type { Database } from './schema.js';

/**
 * Webhooks and their deliveries in `webhooks` / `webhook_deliveries` (SQLite or PostgreSQL). A
 * write under a cluster lease runs in a transaction behind the lease fence (lease-fence.ts).
 */
export class SqlWebhookStore implements WebhookStorePort {
  constructor(private readonly db: Db) {}

  private async fenced(lease: TenantLease | undefined, op: (k: Kysely<Database>) => Promise<unknown>) {
    if (!lease || lease.epoch === 0) {
      await op(this.db.kysely);
      return;
    }
    await this.db.kysely.transaction().execute(async (trx) => {
      await assertEpoch(trx, lease.tenantId, lease.nodeId, lease.epoch);
      await op(trx);
    });
  }

  assertLease(lease: TenantLease): Promise<void> {
    return this.fenced(lease, async () => {});
  }

  async loadAll(tenantId?: number): Promise<{ webhooks: StoredWebhook[]; deliveries: StoredDelivery[] }> {
    const k = this.db.kysely;
    let hooks = k.selectFrom('webhooks').selectAll();
    let deliveries = k.selectFrom('webhook_deliveries').selectAll().orderBy('position');
    if (tenantId !== undefined) {
      hooks = hooks.where('tenant_id', '=', tenantId);
      deliveries = deliveries.where('webhook_id', 'in', (q) =>
        q.selectFrom('webhooks').select('id').where('tenant_id', '=', tenantId),
      );
    }
    const webhooks = await hooks.execute();
    const rows = await deliveries.execute();
    return {
      webhooks: webhooks.map((w) => ({ id: w.id, tenantId: w.tenant_id, owner: w.owner, state: w.state })),
      deliveries: rows.map((r) => ({
        id: r.id,
        webhookId: r.webhook_id,
        position: Number(r.position),
        body: r.body,
        status: r.status,
        attempts: JSON.parse(r.attempts) as StoredDelivery['attempts'],
      })),
    };
  }

  async saveWebhook(w: StoredWebhook, lease?: TenantLease): Promise<void> {
    const row = { id: w.id, tenant_id: w.tenantId, owner: w.owner, state: w.state };
    await this.fenced(lease, (k) =>
      k
        .insertInto('webhooks')
        .values(row)
        .onConflict((oc) => oc.column('id').doUpdateSet({ state: row.state }))
        .execute(),
    );
  }

  async changeWebhook(
    id: string,
    change: (state: string) => string | undefined,
    lease: TenantLease,
  ): Promise<void> {
    await this.db.kysely.transaction().execute(async (trx) => {
      if (lease.epoch !== 0) await assertEpoch(trx, lease.tenantId, lease.nodeId, lease.epoch);
      let read = trx.selectFrom('webhooks').select('state').where('id', '=', id);
      if (this.db.dialect === 'postgres') read = read.forUpdate();
      const row = await read.executeTakeFirst();
      const next = row && change(row.state);
      if (next !== undefined)
        await trx.updateTable('webhooks').set({ state: next }).where('id', '=', id).execute();
    });
  }

  async deleteWebhook(id: string, lease?: TenantLease): Promise<void> {
    await this.db.kysely.transaction().execute(async (tx) => {
      if (lease && lease.epoch !== 0) await assertEpoch(tx, lease.tenantId, lease.nodeId, lease.epoch);
      await tx.deleteFrom('webhook_deliveries').where('webhook_id', '=', id).execute();
      await tx.deleteFrom('webhooks').where('id', '=', id).execute();
    });
  }

  async saveDelivery(d: StoredDelivery, lease?: TenantLease): Promise<void> {
    const row = {
      id: d.id,
      webhook_id: d.webhookId,
      position: d.position,
      body: d.body,
      status: d.status,
      attempts: JSON.stringify(d.attempts),
    };
    const prune = prunesWith(d);
    await this.fenced(lease, async (k) => {
      await k
        .insertInto('webhook_deliveries')
        .values(row)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({ status: row.status, attempts: row.attempts, position: row.position }),
        )
        .execute();
      if (prune)
        await k
          .deleteFrom('webhook_deliveries')
          .where('webhook_id', '=', d.webhookId)
          .where('status', '<>', 'pending')
          .where('position', '<=', d.position - FINISHED_KEPT)
          .execute();
    });
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('webhook_deliveries').execute();
    await this.db.kysely.deleteFrom('webhooks').execute();
  }
}
