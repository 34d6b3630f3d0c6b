import type { Membership, OwnershipChange } from '../../src/core/cluster.js';

/**
 * A test double of the cluster membership port: ownership is whatever the test sets, and every
 * change is announced to the listeners in order, as the lease-based membership does.
 */
export class StaticMembership implements Membership {
  readonly clustered = true;
  private readonly owners = new Map<number, { node: string; epoch: number }>();
  private readonly listeners: ((c: OwnershipChange) => void | Promise<void>)[] = [];

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

  /** Sets the tenant's owner (a new epoch) and tells the listeners what this node gained or lost. */
  async assign(tenantId: number, node: string): Promise<void> {
    const before = this.owners.get(tenantId);
    const epoch = (before?.epoch ?? 0) + 1;
    this.owners.set(tenantId, { node, epoch });
    const wasMine = before?.node === this.nodeId;
    const isMine = node === this.nodeId;
    if (wasMine === isMine) return;
    const change: OwnershipChange = isMine
      ? { tenantId, owned: true, epoch, ...(before ? { previousOwner: before.node } : {}) }
      : { tenantId, owned: false, epoch: before?.epoch ?? 0 };
    for (const l of [...this.listeners]) await l(change);
  }
}
