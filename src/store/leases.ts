/**
 * Tenant leases in PostgreSQL (docs/cluster.md): which node runs a tenant, until when, under which
 * epoch. Every time is the database's clock (`now()`), never a node's, so nodes whose clocks
 * disagree still agree on who holds what. A lease is never deleted: a release only ends it
 * (`expires_at` = 0), so its epoch keeps counting and a fencing token is never issued twice.
 *
 * Cluster mode runs on PostgreSQL only (the flags require it); these statements use its syntax.
 */
import { type Kysely, sql } from 'kysely';
import type { Db } from './database.js';
import type { Database } from './schema.js';

/** The database's clock in epoch milliseconds (the start of the current transaction). */
export const DB_NOW_MS = sql<number>`(extract(epoch from now()) * 1000)::bigint`;

/** The database clock, in epoch milliseconds. */
export async function dbNow(k: Kysely<Database>): Promise<number> {
  const row = await k.selectNoFrom(DB_NOW_MS.as('now')).executeTakeFirstOrThrow();
  return Number(row.now);
}

export interface Lease {
  tenantId: number;
  owner: string;
  epoch: number;
  /** Database-clock milliseconds; 0 for a released lease. */
  expiresAt: number;
}

export type Acquired =
  | { acquired: true; epoch: number; expiresAt: number; now: number; previousOwner?: string }
  | { acquired: false; owner: string; epoch: number; expiresAt: number; now: number };

export class LeaseStore {
  constructor(private readonly db: Db) {}

  private get k(): Kysely<Database> {
    return this.db.kysely;
  }

  now(): Promise<number> {
    return dbNow(this.k);
  }

  /**
   * Takes the tenant's lease when it is free, expired or already this node's. A new grant (to
   * another node, or after the lease lapsed) gets the next epoch; taking one's own live lease
   * again keeps its epoch and extends it.
   */
  async acquire(tenantId: number, nodeId: string, ttlMs: number): Promise<Acquired> {
    return this.k.transaction().execute(async (trx) => {
      const { now } = await trx.selectNoFrom(DB_NOW_MS.as('now')).executeTakeFirstOrThrow();
      const t = Number(now);
      const cur = await trx
        .selectFrom('tenant_leases')
        .select(['owner_node', 'epoch', 'expires_at'])
        .where('tenant_id', '=', tenantId)
        .forUpdate()
        .executeTakeFirst();
      const expiresAt = t + ttlMs;
      if (!cur) {
        const inserted = await trx
          .insertInto('tenant_leases')
          .values({ tenant_id: tenantId, owner_node: nodeId, epoch: 1, expires_at: expiresAt, granted_at: t })
          .onConflict((oc) => oc.column('tenant_id').doNothing())
          .returning('epoch')
          .executeTakeFirst();
        if (inserted) return { acquired: true, epoch: 1, expiresAt, now: t };
        // Another node inserted it first (its transaction committed after this one began).
        const other = await trx
          .selectFrom('tenant_leases')
          .select(['owner_node', 'epoch', 'expires_at'])
          .where('tenant_id', '=', tenantId)
          .executeTakeFirstOrThrow();
        return {
          acquired: false,
          owner: other.owner_node,
          epoch: Number(other.epoch),
          expiresAt: Number(other.expires_at),
          now: t,
        };
      }
      const live = Number(cur.expires_at) > t;
      const mine = cur.owner_node === nodeId;
      if (live && !mine) {
        return {
          acquired: false,
          owner: cur.owner_node,
          epoch: Number(cur.epoch),
          expiresAt: Number(cur.expires_at),
          now: t,
        };
      }
      const epoch = live && mine ? Number(cur.epoch) : Number(cur.epoch) + 1;
      await trx
        .updateTable('tenant_leases')
        .set({ owner_node: nodeId, epoch, expires_at: expiresAt, ...(live && mine ? {} : { granted_at: t }) })
        .where('tenant_id', '=', tenantId)
        .execute();
      return { acquired: true, epoch, expiresAt, now: t, ...(mine ? {} : { previousOwner: cur.owner_node }) };
    });
  }

  /**
   * Extends this node's live leases whose epoch is still the given one. Answers the renewed
   * tenants with their new expiry; a tenant missing from the answer is lost (taken over, or
   * lapsed before the renewal arrived).
   */
  async renew(
    nodeId: string,
    held: readonly { tenantId: number; epoch: number }[],
    ttlMs: number,
  ): Promise<{ now: number; renewed: Map<number, number> }> {
    if (!held.length) return { now: await this.now(), renewed: new Map() };
    const ids = held.map((h) => h.tenantId);
    const epochs = held.map((h) => h.epoch);
    const { rows } = await sql<{ tenant_id: number; expires_at: number; now: number }>`
      update tenant_leases l set expires_at = ${DB_NOW_MS} + ${ttlMs}
      from unnest(${ids}::int[], ${epochs}::bigint[]) as m(tenant_id, epoch)
      where l.tenant_id = m.tenant_id and l.epoch = m.epoch and l.owner_node = ${nodeId}
        and l.expires_at > ${DB_NOW_MS}
      returning l.tenant_id, l.expires_at, ${DB_NOW_MS} as now`.execute(this.k);
    const now = rows.length ? Number(rows[0]!.now) : await this.now();
    return { now, renewed: new Map(rows.map((r) => [Number(r.tenant_id), Number(r.expires_at)])) };
  }

  /** Ends this node's leases (only those still under the given epoch): free for the next owner now. */
  async release(nodeId: string, held: readonly { tenantId: number; epoch: number }[]): Promise<void> {
    if (!held.length) return;
    const ids = held.map((h) => h.tenantId);
    const epochs = held.map((h) => h.epoch);
    await sql`
      update tenant_leases l set expires_at = 0
      from unnest(${ids}::int[], ${epochs}::bigint[]) as m(tenant_id, epoch)
      where l.tenant_id = m.tenant_id and l.epoch = m.epoch and l.owner_node = ${nodeId}`.execute(this.k);
  }

  /** Every lease, live or not, with the database clock it was read at. */
  async list(): Promise<{ now: number; leases: Lease[] }> {
    const { rows } = await sql<{
      tenant_id: number;
      owner_node: string;
      epoch: number;
      expires_at: number;
      now: number;
    }>`select tenant_id, owner_node, epoch, expires_at, ${DB_NOW_MS} as now
       from tenant_leases order by tenant_id`.execute(this.k);
    const now = rows.length ? Number(rows[0]!.now) : await this.now();
    return {
      now,
      leases: rows.map((r) => ({
        tenantId: Number(r.tenant_id),
        owner: r.owner_node,
        epoch: Number(r.epoch),
        expiresAt: Number(r.expires_at),
      })),
    };
  }
}
