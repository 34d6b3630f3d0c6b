/**
 * Work chained per key: one key's work runs one piece after another, in the order asked (a piece
 * that fails does not stop the next), while other keys' work runs side by side. The authenticator
 * runs a (principal, address)'s verifications so, the membership a tenant's ownership changes,
 * the webhook registry a tenant's take-ups and let-gos.
 */
export class KeyedChain<K> {
  /** Each key's last piece, settled (never rejected); gone once it is and nothing follows. */
  private readonly tails = new Map<K, Promise<void>>();

  /** Runs `work` once the key's earlier work has settled; answers what it answers. */
  run<T>(key: K, work: () => T | Promise<T>): Promise<T> {
    const result = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const settled = result.then(
      () => {},
      () => {},
    );
    this.tails.set(key, settled);
    void settled.then(() => {
      if (this.tails.get(key) === settled) this.tails.delete(key);
    });
    return result;
  }

  /** Settles once the key's work asked so far has; undefined when none is under way. */
  pending(key: K): Promise<void> | undefined {
    return this.tails.get(key);
  }

  /** Settles once every key's work asked so far has. */
  async all(): Promise<void> {
    await Promise.all(this.tails.values());
  }
}
