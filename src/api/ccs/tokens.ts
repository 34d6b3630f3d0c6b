import { randomToken, sha256 } from '../../core/secrets.js';
import type { Db } from '../../store/database.js';
import { CcTokenStore, type StoredToken } from '../../store/cc-tokens.js';
import type { TokenGrant } from './oauth-schemas.js';

export const ACCESS_TTL_S = 3600;
const REFRESH_TTL_MS = 30 * 24 * 3_600_000;
const CACHE_MAX = 50_000;

/**
 * Opaque OAuth tokens, stored by hash only. Expiry is security time: real time, never the
 * virtual clock. Verified access tokens are cached in memory, so a request costs no query.
 */
export class TokenService {
  private readonly store: CcTokenStore;
  private readonly cache = new Map<string, StoredToken>();

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.store = new CcTokenStore(db);
  }

  async issue(subject: string): Promise<TokenGrant> {
    const now = this.now();
    const access = randomToken();
    const refresh = randomToken();
    const accessToken: StoredToken = { kind: 'access', subject, expiresAt: now + ACCESS_TTL_S * 1000 };
    await this.store.put(sha256(access), accessToken, now);
    await this.store.put(sha256(refresh), { kind: 'refresh', subject, expiresAt: now + REFRESH_TTL_MS }, now);
    this.remember(sha256(access), accessToken);
    return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_TTL_S, refresh_token: refresh };
  }

  /** The subject of a valid access token, or null. */
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
      t = await this.store.get(hash);
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
    const t = await this.store.get(hash);
    if (t?.kind !== 'refresh' || t.expiresAt <= this.now()) return null;
    await this.store.remove(hash);
    return { subject: t.subject };
  }

  private remember(hash: string, t: StoredToken): void {
    if (this.cache.size >= CACHE_MAX) {
      this.cache.clear();
      void this.store.removeExpired(this.now()).catch(() => {});
    }
    this.cache.set(hash, t);
  }
}
