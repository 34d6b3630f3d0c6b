/**
 * Security state that must hold across the nodes of a cluster (docs/cluster.md, "Security state"):
 * failed-login counts and lock-outs, and the sockets each client holds. A standalone server keeps
 * both in memory and has none of these ports; a cluster node is given implementations backed by
 * the shared database, with lock-outs also announced to every node so that a credential already
 * verified (and cached) on another node is refused as soon as its principal is locked.
 * Types only: no I/O.
 */

/** The lock-out rule, as configured. */
export interface LockoutRule {
  failures: number;
  windowMs: number;
  periodMs: number;
}

export interface SharedLockouts {
  /** Until when the key (principal + client address) is locked, in ms of real time; 0: not locked. */
  lockedUntil(key: string, now: number): Promise<number>;
  /**
   * Before a credential of the key is verified: takes one of its guesses, counted over every node,
   * so that guesses sent to several nodes at the same moment cannot together go past the rule.
   * Answers the guess to `settle`; or, when the key is locked, or its failures within the window
   * and its guesses under way leave no room (they may lock it), until when to refuse it.
   */
  guess(key: string, now: number, rule: LockoutRule): Promise<{ guess: string } | { lockedUntil: number }>;
  /**
   * The verification of a guess ended; a failed one is counted as a failed login. Answers until
   * when the key is locked now (this failure locked it), or 0.
   */
  settle(key: string, guess: string, failed: boolean, now: number, rule: LockoutRule): Promise<number>;
  /** Hears lock-outs decided on any node (this one included). Returns the unsubscribe. */
  onLocked(listener: (key: string, until: number) => void): () => void;
  /**
   * The stretch of unbroken hearing this node is in: a number that changes whenever lock-outs
   * decided elsewhere may have gone unheard (the connection that carries them dropped, or came
   * back), undefined while none can be heard. A credential verified and cached before is trusted
   * only once the database found its (principal, address) unlocked in the current stretch.
   */
  hearing(): number | undefined;
  /** Forgets every count and lock-out (simulator reset). */
  clear(): Promise<void>;
}

export interface SharedSocketClaims {
  /**
   * Takes one of the client's socket slots, counted over every node; null when the client's live
   * claims already number `perClient`. The claim id is given back with `free`.
   */
  claim(client: string, perClient: number): Promise<string | null>;
  /** Gives the claim back; one whose removal fails is tried again and no longer kept alive. */
  free(claimId: string): void;
  /**
   * Hears a claim of this node found gone while its socket was open (the node stalled past the
   * claims' time to live, and another node dropped them): the client may hold a newer socket.
   */
  onLost(listener: (claimId: string) => void): void;
}

/**
 * One request limiter's in-flight counts on the other nodes (`--limit-per-client`,
 * `--limit-anonymous-per-ip`), as they last told them: each node announces its own counts when
 * they change and hears the others', so admission stays a local look-up (docs/decisions.md §1.8).
 */
export interface SharedInflight {
  /** The client's requests in flight on the other live nodes, as last heard. */
  elsewhere(client: string): number;
  /**
   * Of those, the ones on nodes that keep their slots first when the client turns out to be over
   * its limit (admitted on two nodes at once): this node may keep `perClient - ahead` of its own.
   */
  ahead(client: string): number;
  /** This node's count of the client is now `n` (told to the others soon after). */
  changed(client: string, n: number): void;
  /** Hears another node's count of `client` change (or expire). */
  onHeard(listener: (client: string) => void): void;
}
