/**
 * A fence for the failover tests on PostgreSQL, as the cluster's lease fence works: the current
 * epoch of each tenant sits in a table (here the test's own, `fence_test_leases`), and a write
 * first reads its row `FOR SHARE` in the write's transaction, refused (StaleEpochError) unless
 * the writer holds that epoch. The tests grant epochs as their membership double hands tenants over.
 */
import { sql } from 'kysely';
import { StaleEpochError } from '../../src/core/cluster.js';
import type { Db } from '../../src/store/database.js';
import type { EpochFence } from '../../src/store/epoch-fence.js';

export interface TableFence {
  fence: EpochFence;
  grant(tenantId: number, nodeId: string, epoch: number): Promise<void>;
}

export async function tableFence(db: Db): Promise<TableFence> {
  await sql`create table if not exists fence_test_leases (tenant_id integer primary key, owner_node text not null, epoch bigint not null)`.execute(
    db.kysely,
  );
  return {
    fence: {
      async assert(trx, tenantId, nodeId, epoch) {
        const { rows } = await sql<{ owner_node: string; epoch: number }>`
          select owner_node, epoch from fence_test_leases where tenant_id = ${tenantId} for share`.execute(
          trx,
        );
        const lease = rows[0];
        if (!lease || lease.owner_node !== nodeId || Number(lease.epoch) !== epoch) {
          throw new StaleEpochError(tenantId, epoch);
        }
      },
    },
    async grant(tenantId, nodeId, epoch) {
      await sql`insert into fence_test_leases (tenant_id, owner_node, epoch) values (${tenantId}, ${nodeId}, ${epoch})
        on conflict (tenant_id) do update set owner_node = excluded.owner_node, epoch = excluded.epoch`.execute(
        db.kysely,
      );
    },
  };
}
