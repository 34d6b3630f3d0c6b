/**
 * Lock-out (docs/decisions.md §1.1): `failures` failed logins for one (principal, client IP)
 * within `windowMs` lock that pair out for `periodMs`, even with the right credentials. The principal is the resolved
 * one (`Principal.id`), so every spelling of a username shares one count; failed logins that name
 * nobody share the address's `UNKNOWN_PRINCIPAL` count. Real time, never the
 * virtual clock: it is a security timer. A successful login in between does not forget failures:
 * the spec counts failed logins within the window (and a cached success never reached this anyway).
 */
export interface LockoutPolicy {
  failures: number;
  windowMs: number;
  periodMs: number;
}

interface Entry {
  /** Times of recent failures, oldest first. */
  failures: number[];
  lockedUntil?: number;
}

export class Lockout {
  private entries = new Map<string, Entry>();

  constructor(
    private readonly policy: () => LockoutPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** The (principal, address) pairs remembered. */
  get size(): number {
    return this.entries.size;
  }

  /** Milliseconds left of a lock-out, or 0 when the pair may try. */
  lockedFor(principalId: string, ip: string): number {
    // Runs on every authenticated request: nothing to build while no one has failed.
    if (this.entries.size === 0) return 0;
    const k = key(principalId, ip);
    const e = this.entries.get(k);
    if (!e?.lockedUntil) return 0;
    const left = e.lockedUntil - this.now();
    if (left > 0) return left;
    this.entries.delete(k);
    return 0;
  }

  /** Records a failure; returns the lock-out length when this failure locks the pair. */
  fail(principalId: string, ip: string): number {
    const { failures, windowMs, periodMs } = this.policy();
    const k = key(principalId, ip);
    const now = this.now();
    const e = this.entries.get(k) ?? { failures: [] };
    e.failures = e.failures.filter((t) => now - t < windowMs);
    e.failures.push(now);
    if (e.failures.length >= failures) {
      e.lockedUntil = now + periodMs;
      e.failures = [];
    }
    this.entries.set(k, e);
    this.prune(now, windowMs);
    return e.lockedUntil ? periodMs : 0;
  }

  /** Locks a key (`lockoutKey`) until `until`: a lock-out another node decided (docs/cluster.md). */
  lockUntil(k: string, until: number): void {
    const e = this.entries.get(k) ?? { failures: [] };
    if ((e.lockedUntil ?? 0) >= until) return;
    e.lockedUntil = until;
    this.entries.set(k, e);
    // In a cluster this is the only way in (failures are counted in the database), so it bounds too.
    this.prune(this.now(), this.policy().windowMs);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Bounds memory under a credential-stuffing flood: drop pairs with nothing recent. */
  private prune(now: number, windowMs: number): void {
    if (this.entries.size < 10_000) return;
    for (const [k, e] of this.entries) {
      const live = (e.lockedUntil ?? 0) > now || e.failures.some((t) => now - t < windowMs);
      if (!live) this.entries.delete(k);
    }
  }
}

/** The lock-out principal of failed logins whose username names no one who may log in. */
export const UNKNOWN_PRINCIPAL = 'unknown';

/** The key of one (principal, client address) pair. */
export const lockoutKey = (principalId: string, ip: string) => `${principalId}\u0000${ip}`;
const key = lockoutKey;
