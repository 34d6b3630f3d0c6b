/**
 * Fencing of a tenant owner's durable writes (docs/cluster.md). A write that must not survive a
 * takeover runs in a transaction that first calls `assertEpoch`: it reads the tenant's lease row
 * `FOR SHARE`, so no other node can take the lease until the transaction ends, and refuses unless
 * the lease is still this node's, under this epoch, and not expired by the database's clock. An
 * owner that was paused past its lease therefore cannot overwrite what its successor wrote.
 *
 * Epoch 0 is a standalone server's (core/cluster.ts): there is no lease to check, so it passes
 * without a query (and on SQLite, which has no cluster).
 */
import { type Kysely, sql } from 'kysely';
import { CompiledShapes } from './compiled-shapes.js';
import { StaleEpochError } from '../core/cluster.js';
import { DB_NOW_MS } from './leases.js';
import type { Database } from './schema.js';

/** The check, compiled once (PostgreSQL's SQL: epoch 0, the only one SQLite sees, never runs it). */
const fence = new CompiledShapes<{ ok: number }>();

export async function assertEpoch(
  trx: Kysely<Database>,
  tenantId: number,
  nodeId: string,
  epoch: number,
): Promise<void> {
  if (epoch === 0) return;
  const rows = await fence.rows(
    'fence',
    [tenantId, nodeId, epoch],
    () => ({
      compile: () =>
        sql<{ ok: number }>`
        select 1 as ok from tenant_leases
        where tenant_id = ${tenantId} and owner_node = ${nodeId} and epoch = ${epoch}
          and expires_at > ${DB_NOW_MS}
        for share`.compile(trx),
    }),
    trx,
  );
  if (!rows.length) throw new StaleEpochError(tenantId, epoch);
}
