/**
 * Who runs a tenant. In a cluster (docs/cluster.md) each tenant's switch, contact center and
 * queue live on one node at a time, the holder of the tenant's lease; every other node forwards
 * the tenant's commands there and fans out the events the owner publishes. This port is what the
 * layers below the composition root may know of that: whether this node owns a tenant, under
 * which lease epoch (the fencing token of its durable writes), and when that changes.
 * A standalone server owns every tenant under epoch 0 and never changes. Types and the
 * standalone implementation only: no I/O.
 */

/**
 * What the nodes of one cluster must agree on to run together: the messages they exchange over
 * NATS (forwarded requests and their answers, a socket's `.state`, events, directory, clock,
 * security and in-flight messages) and the forms of the live state one node writes and another
 * takes over (`live_calls`, `live_call_history`, `cc_agent_states`, `live_device_states`). A node refuses to join a
 * cluster while a node of another protocol may still run (docs/cluster.md § Upgrading). Raise it
 * with any change a node of the previous release would misread; a release that leaves all of
 * these as they were keeps it, and its nodes can replace the previous ones one at a time.
 *
 * 1: every node before protocols were recorded (the column's default). 2: since the socket's
 * `.state` answer became a frame and a live call's steps moved to `live_call_history` (0009).
 * 3: since a resumable session's writes name the attachment that holds it (0011). 4: since a
 * session names the node that took it, and nodes let go of a dead node's sessions (0012), and
 * each event carries its publisher's lease epoch (`Sb-Epoch`). 5: since phones' registrations
 * are live state (`live_device_states`, 0013).
 */
export const CLUSTER_PROTOCOL = 5;

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
  /**
   * Called whenever this node gains or loses a tenant: a tenant's changes in order, each heard by
   * every listener (in the order they registered) before its next; other tenants' side by side.
   * Returns the unsubscribe.
   */
  onChange(listener: (change: OwnershipChange) => void | Promise<void>): () => void;
  /**
   * While this node's gain of the tenant is still being taken over (its listeners have not all
   * run: the previous owner's calls, agents and webhooks are not here yet), a promise that
   * resolves once they have; otherwise undefined. It never rejects.
   */
  takingOver(tenantId: number): Promise<void> | undefined;
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
  takingOver(): undefined {
    return undefined;
  }
}

/**
 * The fencing token of a tenant's durable write: the node that writes and the lease epoch it
 * writes under. Epoch 0 is a standalone server's, which no store checks.
 */
export interface WriteLease {
  nodeId: string;
  epoch: number;
}

/** A write fenced by one tenant's lease. */
export interface TenantLease extends WriteLease {
  tenantId: number;
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
