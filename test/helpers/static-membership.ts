import type { Membership, OwnershipChange } from '../../src/core/cluster.js';
import type { Db } from '../../src/store/database.js';

/**
 * A test double of the cluster membership port: ownership is whatever the test sets, and every
 * change is announced to the listeners in order, as the lease-based membership does.
 *
 * Bound to the node's database (`bindLeases`), it also writes the tenant's lease row whenever
 * this node gains a tenant, under an epoch above the row's, as a lease grant would: the real
 * lease fence (src/store/lease-fence.ts) then passes this node's durable writes (call records,
 * live state) and refuses those of the node that held the tenant before.
 */
export class StaticMembership implements Membership {
  readonly clustered = true;
  private readonly owners = new Map<number, { node: string; epoch: number }>();
  private readonly listeners: ((c: OwnershipChange) => void | Promise<void>)[] = [];
  private leases: Db | undefined;
  /** Gains whose listeners are still running. */
  private readonly gaining = new Map<number, Promise<void>>();

  constructor(readonly nodeId: string) {}

  owns(tenantId: number): boolean {
    return this.owners.get(tenantId)?.node === this.nodeId;
  }
  ownerOf(tenantId: number): string | undefined {
    return this.owners.get(tenantId)?.node;
  }
  epochOf(tenantId: number): number | undefined {
    const o = this.owners.get(tenantId);
    return o?.node === this.nodeId ? o.epoch : undefined;
  }
  onChange(listener: (c: OwnershipChange) => void | Promise<void>): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener) >>> 0, 1);
  }

  /** From now on gains write lease rows in `db`; the tenants this node holds already get theirs now. */
  async bindLeases(db: Db): Promise<void> {
    this.leases = db;
    for (const [tenantId, o] of this.owners) {
      if (o.node === this.nodeId) o.epoch = await this.writeLease(tenantId, o.epoch);
    }
  }

  /** Sets the tenant's owner (a new epoch) and tells the listeners what this node gained or lost. */
  async assign(tenantId: number, node: string): Promise<void> {
    const before = this.owners.get(tenantId);
    let epoch = (before?.epoch ?? 0) + 1;
    const wasMine = before?.node === this.nodeId;
    const isMine = node === this.nodeId;
    if (isMine && !wasMine && this.leases) epoch = await this.writeLease(tenantId, epoch);
    this.owners.set(tenantId, { node, epoch });
    if (wasMine === isMine) return;
    const change: OwnershipChange = isMine
      ? { tenantId, owned: true, epoch, ...(before ? { previousOwner: before.node } : {}) }
      : { tenantId, owned: false, epoch: before?.epoch ?? 0 };
    if (!isMine) {
      for (const l of [...this.listeners]) await l(change);
      return;
    }
    const heard = (async () => {
      for (const l of [...this.listeners]) await l(change);
    })();
    this.gaining.set(tenantId, heard);
    try {
      await heard;
    } finally {
      if (this.gaining.get(tenantId) === heard) this.gaining.delete(tenantId);
    }
  }

  takingOver(tenantId: number): Promise<void> | undefined {
    return this.gaining.get(tenantId)?.catch(() => {});
  }

  /** This node's lease row for an hour, under `epoch` or above the row's; answers the epoch. */
  private async writeLease(tenantId: number, epoch: number): Promise<number> {
    const k = this.leases!.kysely;
    const row = await k
      .selectFrom('tenant_leases')
      .select(['owner_node', 'epoch'])
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst();
    const stored = Number(row?.epoch ?? 0);
    const mineAlready = row?.owner_node === this.nodeId && stored >= epoch;
    const e = mineAlready ? stored : Math.max(epoch, stored + 1);
    const lease = {
      owner_node: this.nodeId,
      epoch: e,
      expires_at: Date.now() + 3_600_000,
      granted_at: Date.now(),
    };
    await k
      .insertInto('tenant_leases')
      .values({ tenant_id: tenantId, ...lease })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(lease))
      .execute();
    return e;
  }
}
