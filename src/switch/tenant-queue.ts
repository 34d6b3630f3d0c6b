/**
 * One serialized command queue per tenant.
 *
 * Commands are synchronous: a command runs to completion on a consistent state and never
 * interleaves with another command of the same tenant. What a command causes outside the switch
 * (its facts: domain events and ACD facts) is not delivered while it runs: it goes to the tenant's
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
  /** Run once the outbox is empty, still in the turn (their effects are delivered too). */
  settled: (() => void)[];
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

  /**
   * Runs `fn` at the end of the current turn, once every effect has been delivered (at once when
   * the queue is idle). Work that should see the settled state, whatever caused it, goes here.
   */
  whenSettled(tenantId: number, fn: () => void): void {
    const lane = this.lane(tenantId);
    lane.settled.push(fn);
    if (lane.depth === 0 && !lane.draining) this.drain(lane);
  }

  /** Is the tenant's queue taking its turn (a command running or its effects being delivered)? */
  inTurn(tenantId: number): boolean {
    const lane = this.lanes.get(tenantId);
    return !!lane && (lane.depth > 0 || lane.draining);
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
      lane.settled = [];
    }
  }

  private lane(tenantId: number): Lane<E> {
    let lane = this.lanes.get(tenantId);
    if (!lane) {
      lane = { depth: 0, draining: false, outbox: [], head: 0, settled: [] };
      this.lanes.set(tenantId, lane);
    }
    return lane;
  }

  private drain(lane: Lane<E>): void {
    lane.draining = true;
    try {
      for (;;) {
        while (lane.head < lane.outbox.length) this.attempt(lane.outbox[lane.head++]!);
        lane.outbox = [];
        lane.head = 0;
        // One at a time: each sees the effects of the one before delivered.
        const hook = lane.settled.shift();
        if (!hook) break;
        this.attempt(hook);
      }
    } finally {
      lane.outbox = [];
      lane.head = 0;
      lane.draining = false;
    }
  }

  private attempt(effect: Effect<E>): void {
    try {
      if (typeof effect === 'function') effect();
      else this.deliver(effect);
    } catch (e) {
      this.onError(e);
    }
  }
}
