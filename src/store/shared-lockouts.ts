import { randomUUID } from 'node:crypto';
import { sha256 } from '../core/secrets.js';
import type { LockoutRule, SharedLockouts } from '../core/shared-security.js';
import type { Db } from './database.js';
import { DB_NOW_MS } from './leases.js';

/**
 * A node sweeps stale rows at most this often, on a failed login, this many rows at a time,
 * going on from the last key it looked at (so it walks the whole table, not the same rows).
 */
const SWEEP_EVERY_MS = 10_000;
const SWEEP_ROWS = 2_000;
/**
 * A guess under way counts this long at most: a key derivation takes well under a second, so
 * one older than this is of a node that died with it in hand.
 */
export const GUESS_TTL_MS = 5_000;
/** How long a guess that found no room is refused for (the guesses under way end by then). */
const NO_ROOM_MS = 1_000;

interface Guess {
  at: number;
  id: string;
}

/**
 * Failed logins counted in the shared database (`auth_failures`), so that failures spread over the
 * nodes of a cluster add up. Each count is a row locked for the update (an upsert made for it:
 * PostgreSQL, the one database a cluster runs on), keyed by a digest of the key (it holds NULs).
 * The guesses under way are counted in the same row: a verification takes one before it runs
 * (`guess`) and gives it back, failed or not, when it ends (`settle`), so guesses that reach
 * several nodes at the same moment are checked against each other, not each against the failures
 * before them all. Lock-outs decided here are also announced through `announce`, which a node's
 * cluster wiring sends to every node (and back to `heard`).
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

  async guess(
    key: string,
    now: number,
    rule: LockoutRule,
  ): Promise<{ guess: string } | { lockedUntil: number }> {
    return this.update<{ guess: string } | { lockedUntil: number }>(key, (row, dbNow) => {
      if (row.lockedUntil > now) return { answer: { lockedUntil: row.lockedUntil } };
      const failures = row.failures.filter((f) => now - f < rule.windowMs);
      const guesses = row.guesses.filter((g) => dbNow - g.at < GUESS_TTL_MS);
      // No room: the guesses under way may lock the pair; one asked again a second later knows.
      if (failures.length + guesses.length >= rule.failures)
        return { answer: { lockedUntil: now + NO_ROOM_MS } };
      const id = randomUUID();
      guesses.push({ at: dbNow, id });
      return { answer: { guess: id }, write: { failures, guesses, lockedUntil: row.lockedUntil } };
    });
  }

  async settle(key: string, guess: string, failed: boolean, now: number, rule: LockoutRule): Promise<number> {
    const until = await this.update(key, (row, dbNow) => {
      const guesses = row.guesses.filter((g) => g.id !== guess && dbNow - g.at < GUESS_TTL_MS);
      if (!failed) return { answer: 0, write: { ...row, guesses } };
      if (row.lockedUntil > now) return { answer: row.lockedUntil, write: { ...row, guesses } };
      const failures = row.failures.filter((t) => now - t < rule.windowMs);
      failures.push(now);
      const locks = failures.length >= rule.failures;
      return {
        answer: locks ? now + rule.periodMs : 0,
        write: { failures: locks ? [] : failures, guesses, lockedUntil: locks ? now + rule.periodMs : 0 },
      };
    });
    // Counted and stored: an announcement that cannot go out (the connection closed, the node
    // stopping) does not undo that. The others then refuse the pair's new logins (they read the
    // database) but not a credential they had cached, until the lock-out ends.
    if (until > now) {
      try {
        this.announce(key, until);
      } catch {
        // Nothing more to do: the lock-out is in the database.
      }
    }
    if (failed && now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      // Not on the failed login's way: it is answered without waiting.
      void this.sweep(now, rule.windowMs).catch(() => {});
    }
    return until > now ? until : 0;
  }

  /**
   * The key's row, made if missing and locked for the transaction in one statement (no sweep or
   * other guess comes between), with the database's clock; writes what `change` decides.
   */
  private update<A>(
    key: string,
    change: (
      row: { failures: number[]; guesses: Guess[]; lockedUntil: number },
      dbNow: number,
    ) => { answer: A; write?: { failures: number[]; guesses: Guess[]; lockedUntil: number } },
  ): Promise<A> {
    const lockKey = sha256(key);
    return this.db.kysely.transaction().execute(async (trx) => {
      const row = await trx
        .insertInto('auth_failures')
        .values({ lock_key: lockKey, failures: '[]', locked_until: 0 })
        .onConflict((oc) =>
          oc.column('lock_key').doUpdateSet((eb) => ({ lock_key: eb.ref('excluded.lock_key') })),
        )
        .returning(['failures', 'guesses', 'locked_until', DB_NOW_MS.as('db_now')])
        .executeTakeFirstOrThrow();
      const { answer, write } = change(
        {
          failures: JSON.parse(row.failures) as number[],
          guesses: JSON.parse(row.guesses) as Guess[],
          lockedUntil: Number(row.locked_until),
        },
        Number(row.db_now),
      );
      if (write) {
        await trx
          .updateTable('auth_failures')
          .set({
            failures: JSON.stringify(write.failures),
            guesses: JSON.stringify(write.guesses),
            locked_until: write.lockedUntil,
          })
          .where('lock_key', '=', lockKey)
          .execute();
      }
      return answer;
    });
  }

  /**
   * Removes the rows of keys neither locked nor failed within the window: without it, every
   * (principal, address) that ever failed keeps a row for ever (an attacker with many addresses
   * grows the table without bound). A row changed since it was read is left for the next sweep.
   */
  async sweep(now: number, windowMs: number): Promise<number> {
    const rows = await this.db.kysely
      .selectFrom('auth_failures')
      .select(['lock_key', 'failures', 'locked_until', 'guesses', DB_NOW_MS.as('db_now')])
      .where('locked_until', '<=', now)
      .where('lock_key', '>', this.sweptTo)
      .orderBy('lock_key')
      .limit(SWEEP_ROWS)
      .execute();
    // The whole table walked: the next sweep starts again from the first key.
    this.sweptTo = rows.length < SWEEP_ROWS ? '' : rows.at(-1)!.lock_key;
    const stale = rows.filter(
      (r) =>
        !(JSON.parse(r.failures) as number[]).some((t) => now - t < windowMs) &&
        !(JSON.parse(r.guesses) as Guess[]).some((g) => Number(r.db_now) - g.at < GUESS_TTL_MS),
    );
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
              eb('guesses', '=', row.guesses),
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
    this.up = up;
    // Every time it comes back (even with its drop unseen), what was announced meanwhile is lost.
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
