import { sha256 } from '../core/secrets.js';
import type { LockoutRule, SharedLockouts } from '../core/shared-security.js';
import type { Db } from './database.js';

/**
 * A node sweeps stale rows at most this often, on a failed login, this many rows at a time,
 * going on from the last key it looked at (so it walks the whole table, not the same rows).
 */
const SWEEP_EVERY_MS = 10_000;
const SWEEP_ROWS = 2_000;

/**
 * Failed logins counted in the shared database (`auth_failures`), so that failures spread over the
 * nodes of a cluster add up. Each count is a row locked for the update (`FOR UPDATE` on
 * PostgreSQL, the one database a cluster runs on), keyed by a digest of the key (it holds NULs). Lock-outs decided here are also announced
 * through `announce`, which a node's cluster wiring sends to every node (and back to `heard`).
 */
export class SqlSharedLockouts implements SharedLockouts {
  private readonly listeners: ((key: string, until: number) => void)[] = [];
  private lastSweep = 0;
  /** Where the next sweep goes on from. */
  private sweptTo = '';
  private up = true;
  private stretch = 0;

  constructor(
    private readonly db: Db,
    private readonly announce: (key: string, until: number) => void = (k, u) => this.heard(k, u),
  ) {}

  async lockedUntil(key: string, now: number): Promise<number> {
    const row = await this.db.kysely
      .selectFrom('auth_failures')
      .select('locked_until')
      .where('lock_key', '=', sha256(key))
      .executeTakeFirst();
    const until = Number(row?.locked_until ?? 0);
    return until > now ? until : 0;
  }

  async fail(key: string, now: number, rule: LockoutRule): Promise<number> {
    const until = await this.db.kysely.transaction().execute(async (trx) => {
      let q = trx.selectFrom('auth_failures').selectAll().where('lock_key', '=', sha256(key));
      if (this.db.dialect === 'postgres') q = q.forUpdate();
      const row = await q.executeTakeFirst();
      const lockedUntil = Number(row?.locked_until ?? 0);
      if (lockedUntil > now) return lockedUntil;
      const failures = (row ? (JSON.parse(row.failures) as number[]) : []).filter(
        (t) => now - t < rule.windowMs,
      );
      failures.push(now);
      const locks = failures.length >= rule.failures;
      const values = {
        failures: JSON.stringify(locks ? [] : failures),
        locked_until: locks ? now + rule.periodMs : 0,
      };
      await trx
        .insertInto('auth_failures')
        .values({ lock_key: sha256(key), ...values })
        .onConflict((oc) => oc.column('lock_key').doUpdateSet(values))
        .execute();
      return values.locked_until;
    });
    if (until > now) this.announce(key, until);
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      // Not on the failed login's way: it is answered without waiting.
      void this.sweep(now, rule.windowMs).catch(() => {});
    }
    return until > now ? until : 0;
  }

  /**
   * Removes the rows of keys neither locked nor failed within the window: without it, every
   * (principal, address) that ever failed keeps a row for ever (an attacker with many addresses
   * grows the table without bound). A row changed since it was read is left for the next sweep.
   */
  async sweep(now: number, windowMs: number): Promise<number> {
    const rows = await this.db.kysely
      .selectFrom('auth_failures')
      .select(['lock_key', 'failures', 'locked_until'])
      .where('locked_until', '<=', now)
      .where('lock_key', '>', this.sweptTo)
      .orderBy('lock_key')
      .limit(SWEEP_ROWS)
      .execute();
    // The whole table walked: the next sweep starts again from the first key.
    this.sweptTo = rows.length < SWEEP_ROWS ? '' : rows.at(-1)!.lock_key;
    const stale = rows.filter((r) => !(JSON.parse(r.failures) as number[]).some((t) => now - t < windowMs));
    if (stale.length === 0) return 0;
    const r = await this.db.kysely
      .deleteFrom('auth_failures')
      .where((eb) =>
        eb.or(
          stale.map((row) =>
            eb.and([
              eb('lock_key', '=', row.lock_key),
              eb('failures', '=', row.failures),
              eb('locked_until', '=', row.locked_until),
            ]),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(r.numDeletedRows);
  }

  hearing(): number | undefined {
    return this.up ? this.stretch : undefined;
  }

  /** Whether lock-outs decided elsewhere reach this node now (its NATS connection is up). */
  setHearing(up: boolean): void {
    if (up === this.up) return;
    this.up = up;
    if (up) this.stretch++;
  }

  /** A lock-out decided on some node (this one included). */
  heard(key: string, until: number): void {
    for (const l of this.listeners) l(key, until);
  }

  onLocked(listener: (key: string, until: number) => void): () => void {
    this.listeners.push(listener);
    return () => this.listeners.splice(this.listeners.indexOf(listener) >>> 0, 1);
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('auth_failures').execute();
  }
}
