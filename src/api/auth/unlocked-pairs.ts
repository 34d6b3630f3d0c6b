/**
 * The (principal, address) pairs the shared database found unlocked, on a cluster node, kept for
 * one stretch of hearing (`SharedLockouts.hearing`). Within a stretch every lock-out decided on
 * another node reaches this one, so a credential cached here may be used without asking the
 * database again. A stretch ends when some may have gone unheard (the node's NATS connection
 * dropped, or came back after missing what was sent meanwhile): the pairs are forgotten, and while
 * nothing can be heard none is kept, so each use of a cached credential asks the database first.
 */
export class UnlockedPairs {
  private readonly pairs = new Set<string>();
  private stretch: number | undefined;

  constructor(
    private readonly hearing: () => number | undefined,
    private readonly max: number,
  ) {}

  has(key: string): boolean {
    this.follow();
    return this.stretch !== undefined && this.pairs.has(key);
  }

  /** The database found `key` unlocked; `stretch` is the one its query began in. */
  add(key: string, stretch: number | undefined): void {
    this.follow();
    if (stretch === undefined || stretch !== this.stretch) return;
    if (this.pairs.size >= this.max) this.pairs.clear();
    this.pairs.add(key);
  }

  clear(): void {
    this.pairs.clear();
  }

  private follow(): void {
    const now = this.hearing();
    if (now === this.stretch) return;
    this.pairs.clear();
    this.stretch = now;
  }
}
