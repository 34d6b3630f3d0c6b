/**
 * One serialized command queue per tenant.
 *
 * Commands are synchronous: a command runs to completion on a consistent state and never
 * interleaves with another command of the same tenant. What a command causes outside the switch
 * (domain events, ACD-port callbacks) is not delivered while it runs: it goes to the tenant's
 * outbox and is delivered, in the order it was produced, once the outermost command returns.
 * A subscriber that reacts by sending a new command (the contact center offering a queued call,
 * say) runs after the state has settled, and the effects of that command join the end of the same
 * outbox, so no subscriber ever sees events out of order. Because nothing is shared between
 * tenants, a cluster can later run each tenant's queue on the node that owns the tenant.
 */
export type Effect<E> = E | (() => void);

interface Lane<E> {
  depth: number;
  draining: boolean;
  outbox: Effect<E>[];
  head: number;
}

export class TenantQueue<E extends object> {
  private readonly lanes = new Map<number, Lane<E>>();

  constructor(
    private readonly deliver: (event: E) => void,
    private readonly onError: (e: unknown) => void,
  ) {}

  /** Runs a command on the tenant's queue; effects are delivered when the outermost command ends. */
  run<T>(tenantId: number, command: () => T): T {
    const lane = this.lane(tenantId);
    lane.depth++;
    try {
      return command();
    } finally {
      lane.depth--;
      if (lane.depth === 0 && !lane.draining) this.drain(lane);
    }
  }

  /** Queues an event (or a callback) for delivery after the current command. */
  defer(tenantId: number, effect: Effect<E>): void {
    const lane = this.lane(tenantId);
    lane.outbox.push(effect);
    if (lane.depth === 0 && !lane.draining) this.drain(lane);
  }

  /** Effects waiting for delivery, by tenant (the operator's metrics; 0 between commands). */
  pending(): Map<number, number> {
    const out = new Map<number, number>();
    for (const [tenantId, lane] of this.lanes) out.set(tenantId, lane.outbox.length - lane.head);
    return out;
  }

  /** Drops every undelivered effect (reset). */
  clear(): void {
    for (const lane of this.lanes.values()) {
      lane.outbox = [];
      lane.head = 0;
    }
  }

  private lane(tenantId: number): Lane<E> {
    let lane = this.lanes.get(tenantId);
    if (!lane) {
      lane = { depth: 0, draining: false, outbox: [], head: 0 };
      this.lanes.set(tenantId, lane);
    }
    return lane;
  }

  private drain(lane: Lane<E>): void {
    lane.draining = true;
    try {
      while (lane.head < lane.outbox.length) {
        const effect = lane.outbox[lane.head++];
        try {
          if (typeof effect === 'function') effect();
          else this.deliver(effect);
        } catch (e) {
          this.onError(e);
        }
      }
    } finally {
      lane.outbox = [];
      lane.head = 0;
      lane.draining = false;
    }
  }
}
