/**
 * Who runs a tenant. In a cluster (docs/cluster.md) each tenant's switch, contact center and
 * queue live on one node at a time, the holder of the tenant's lease; every other node forwards
 * the tenant's commands there and fans out the events the owner publishes. This port is what the
 * layers below the composition root may know of that: whether this node owns a tenant, under
 * which lease epoch (the fencing token of its durable writes), and when that changes.
 * A standalone server owns every tenant under epoch 0 and never changes. Types and the
 * standalone implementation only: no I/O.
 */

/** A change of this node's ownership of one tenant. */
export interface OwnershipChange {
  tenantId: number;
  /** True: this node now owns the tenant. False: it no longer does (lease lost or handed over). */
  owned: boolean;
  /** The lease epoch granted (owned) or the epoch that ended (not owned). */
  epoch: number;
  /** Gained: the node that held the tenant before, when another one did. */
  previousOwner?: string;
}

export interface Membership {
  /** This node's id (stable for the life of the process). */
  readonly nodeId: string;
  /** False for a standalone server. */
  readonly clustered: boolean;
  /** Whether this node holds the tenant's lease now. */
  owns(tenantId: number): boolean;
  /** The node holding the tenant's lease, when one does and it is known. */
  ownerOf(tenantId: number): string | undefined;
  /** The epoch of this node's lease on the tenant; undefined when it does not own it. */
  epochOf(tenantId: number): number | undefined;
  /** Called, in order, whenever this node gains or loses a tenant. Returns the unsubscribe. */
  onChange(listener: (change: OwnershipChange) => void | Promise<void>): () => void;
}

/** A standalone server: this node owns every tenant, for ever, under epoch 0. */
export class StandaloneMembership implements Membership {
  readonly clustered = false;
  constructor(readonly nodeId = 'standalone') {}
  owns(): boolean {
    return true;
  }
  ownerOf(): string {
    return this.nodeId;
  }
  epochOf(): number {
    return 0;
  }
  onChange(): () => void {
    return () => {};
  }
}

/** Refused: a durable write under a lease epoch that is no longer the tenant's current one. */
export class StaleEpochError extends Error {
  constructor(
    readonly tenantId: number,
    readonly epoch: number,
  ) {
    super(`tenant ${tenantId}: lease epoch ${epoch} is stale; another node owns the tenant`);
  }
}
