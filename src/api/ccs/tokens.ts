import { randomToken, sha256 } from '../../core/secrets.js';
import type { Db } from '../../store/database.js';
import { CcTokenStore, type StoredToken } from '../../store/cc-tokens.js';
import type { TokenGrant } from './oauth-schemas.js';

export const ACCESS_TTL_S = 3600;
const REFRESH_TTL_MS = 30 * 24 * 3_600_000;
const CACHE_MAX = 50_000;
/** The revocations an issue in flight is checked against, at most (older: it is refused). */
const MATCHERS_KEPT = 64;

/**
 * Opaque OAuth tokens, stored by hash only. Expiry is security time: real time, never the
 * virtual clock. Verified access tokens are cached in memory, so a request costs no query.
 */
export class TokenService {
  private readonly store: CcTokenStore;
  private readonly cache = new Map<string, StoredToken>();
  /** The revocation under way (store reads wait for it), and how many have started. */
  private revoking: Promise<void> = Promise.resolve();
  private revocations = 0;
  /** The latest revocations' matches, by number (`revocations` when each began). */
  private readonly matchers: { n: number; matches: (subject: string) => boolean }[] = [];

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new CcTokenStore(db);
  }

  /**
   * A new pair for `subject`; null when a revocation that matches the subject began while it was
   * being stored (the credentials it was granted for changed meanwhile): the revocation may have
   * read the store's subjects before these rows were in, so they are removed here.
   */
  async issue(subject: string): Promise<TokenGrant | null> {
    const before = this.revocations;
    const now = this.now();
    const access = randomToken();
    const refresh = randomToken();
    const accessToken: StoredToken = { kind: 'access', subject, expiresAt: now + ACCESS_TTL_S * 1000 };
    await this.store.put(sha256(access), accessToken, now);
    await this.store.put(sha256(refresh), { kind: 'refresh', subject, expiresAt: now + REFRESH_TTL_MS }, now);
    if (this.revokedSince(before, subject)) {
      await Promise.all([this.store.remove(sha256(access)), this.store.remove(sha256(refresh))]);
      return null;
    }
    this.remember(sha256(access), accessToken);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TTL_S, refresh_token: refresh };
  }

  /** Whether a revocation begun after the `before`th matches `subject` (unknown ones: yes). */
  private revokedSince(before: number, subject: string): boolean {
    if (this.revocations === before) return false;
    if (this.revocations - before > this.matchers.length) return true;
    return this.matchers.some((m) => m.n > before && m.matches(subject));
  }

  /** The subject when the token is in memory (null: expired); undefined when only the store knows. */
  cachedSubject(accessToken: string): string | null | undefined {
    const hash = sha256(accessToken);
    const t = this.cache.get(hash);
    if (!t) return undefined;
    if (t.expiresAt <= this.now()) {
      this.cache.delete(hash);
      return null;
    }
    return t.subject;
  }

  async subjectOf(accessToken: string): Promise<string | null> {
    const hash = sha256(accessToken);
    let t = this.cache.get(hash);
    if (!t) {
      const revocations = this.revocations;
      await this.revoking;
      t = await this.store.get(hash);
      // A revocation began while the store answered: what it said may be gone.
      if (revocations !== this.revocations) return this.subjectOf(accessToken);
      if (t?.kind !== 'access') return null;
      this.remember(hash, t);
    }
    if (t.expiresAt <= this.now()) {
      this.cache.delete(hash);
      return null;
    }
    return t.subject;
  }

  /** Trades a refresh token (once) for a new pair; null when it is not valid. */
  async refresh(refreshToken: string): Promise<{ subject: string } | null> {
    const hash = sha256(refreshToken);
    await this.revoking;
    const t = await this.store.get(hash);
    if (t?.kind !== 'refresh' || t.expiresAt <= this.now()) return null;
    if (!(await this.store.remove(hash))) return null;
    return { subject: t.subject };
  }

  /**
   * Revokes every access and refresh token whose subject `matches`: at once in memory, then in the
   * store, which lookups wait for.
   */
  revoke(matches: (subject: string) => boolean): Promise<void> {
    this.revocations++;
    this.matchers.push({ n: this.revocations, matches });
    if (this.matchers.length > MATCHERS_KEPT) this.matchers.shift();
    for (const [hash, t] of this.cache) if (matches(t.subject)) this.cache.delete(hash);
    const run = this.revoking.then(async () => {
      await this.store.removeSubjects((await this.store.subjects()).filter(matches));
    });
    this.revoking = run.catch(() => {});
    return run;
  }

  private remember(hash: string, t: StoredToken): void {
    if (this.cache.size >= CACHE_MAX) {
      this.cache.clear();
      void this.store.removeExpired(this.now()).catch(() => {});
    }
    this.cache.set(hash, t);
  }
}
