/**
 * Slots a cluster node may still take back, per client (docs/cluster.md, "Security state"): when
 * the nodes hear that a client was admitted on several of them at once over its limit, the nodes
 * with lower ids keep theirs and each other node keeps `perClient - ahead` of its own, taking
 * back the newest beyond that. One rule on every node, so no slot is given up twice. Shared by
 * the REST limiters and the pending-socket registry.
 */
export class TakeBack {
  private readonly offers = new Map<string, (() => void)[]>();

  /** `takeBack` may be called until the returned end is (idempotent). */
  offer(client: string, takeBack: () => void): () => void {
    let list = this.offers.get(client);
    if (!list) this.offers.set(client, (list = []));
    list.push(takeBack);
    return () => {
      const l = this.offers.get(client);
      const i = l?.indexOf(takeBack) ?? -1;
      if (i < 0) return;
      l!.splice(i, 1);
      if (l!.length === 0) this.offers.delete(client);
    };
  }

  /** The client holds `here` slots on this node and may keep `perClient - ahead`. */
  shed(client: string, here: number, perClient: number, ahead: number): void {
    const list = this.offers.get(client);
    if (!list) return;
    let over = here - Math.max(0, perClient - ahead);
    while (over-- > 0 && list.length > 0) list.pop()!();
    if (list.length === 0) this.offers.delete(client);
  }
}
