import type { Db } from '../../src/store/database.js';

/** The tenant's lease row: `node` holds it under `epoch` for an hour (what the lease fence reads). */
export async function grantLease(db: Db, tenantId: number, node: string, epoch: number): Promise<void> {
  const lease = { owner_node: node, epoch, expires_at: Date.now() + 3_600_000, granted_at: Date.now() };
  await db.kysely
    .insertInto('tenant_leases')
    .values({ tenant_id: tenantId, ...lease })
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet(lease))
    .execute();
}
