/**
 * The fencing of a tenant owner's durable writes (docs/cluster.md): each write runs in a
 * transaction that first asks the fence whether the writer's lease epoch is still the tenant's
 * current one, and is refused (StaleEpochError, core/cluster.ts) when it is not, so a paused old
 * owner can never overwrite what its successor wrote. The cluster's fence checks the lease
 * table; a standalone server has no one to be fenced from.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface EpochFence {
  /** Throws StaleEpochError unless `nodeId` holds the tenant's lease under `epoch`. Run inside the write's transaction, first. */
  assert(trx: Kysely<Database>, tenantId: number, nodeId: string, epoch: number): Promise<void>;
}

/** A standalone server: every write passes. */
export const STANDALONE_FENCE: EpochFence = {
  async assert() {},
};
