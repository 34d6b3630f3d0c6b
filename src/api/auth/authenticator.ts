import type { Principal } from '../../core/permissions.js';
import type { Telemetry } from '../../core/telemetry.js';
import { sha256, verifySecret } from '../../core/secrets.js';
import type { Directory, DirectoryChange } from '../../directory/directory.js';
import type { Extension } from '../../directory/model.js';
import { LockedOutError, UnauthorizedError } from './errors.js';
import { Lockout } from './lockout.js';
import { accountOf } from './principals.js';
import { parseBasic } from './usernames.js';

export interface Authenticator {
  /** Verifies credentials from client `ip`; throws UnauthorizedError or LockedOutError. */
  authenticate(username: string, secret: string, ip: string): Principal;
  /**
   * The same for a raw `Basic` Authorization header whose digest (`basicDigest`) the caller has:
   * a header verified before costs a lookup and the lock-out check, with no decoding and no
   * second digest. Null when the header is not valid Basic.
   */
  authenticateBasic(header: string, digest: string, ip: string): Principal | null;
  /** Lock-outs and cached credentials are forgotten (simulator reset). */
  clear(): void;
}

/** What the authenticator needs of the running server (the composition root passes it). */
interface RuntimeDeps {
  directory: Directory;
  config: { lockoutFailures: number; lockoutWindowMs: number; lockoutPeriodMs: number };
  /** Registers state to clear on a simulator reset. */
  onReset(hook: () => void): void;
  /** Counts lock-outs for the operator's metrics. */
  telemetry?: Pick<Telemetry, 'lockouts'>;
}

interface CacheEntry {
  principal: Principal;
  owner: string;
  /** For entries keyed by a Basic header's digest: the lock-out is per (username, IP). */
  username?: string;
}

const CACHE_MAX = 50_000;

/**
 * Credential verification shared by both APIs. A verified (username, secret) is cached by a
 * digest, so a request costs no key derivation; a user's entries are dropped whenever the
 * directory changes that user, their tenant or the roles.
 */
export function createAuthenticator(runtime: RuntimeDeps, now: () => number = Date.now): Authenticator {
  const { directory, config } = runtime;
  const lockout = new Lockout(
    () => ({
      failures: config.lockoutFailures,
      windowMs: config.lockoutWindowMs,
      periodMs: config.lockoutPeriodMs,
    }),
    now,
  );
  const cache = new Map<string, CacheEntry>();
  const byOwner = new Map<string, Set<string>>();

  const forgetOwner = (owner: string) => {
    for (const k of byOwner.get(owner) ?? []) cache.delete(k);
    byOwner.delete(owner);
  };
  const forgetAll = () => {
    cache.clear();
    byOwner.clear();
  };
  const forgetTenant = (tenantId: number) => {
    for (const owner of [...byOwner.keys()]) {
      if (owner.startsWith(`ext:${tenantId}:`) || owner === `tenant:${tenantId}`) forgetOwner(owner);
    }
    // Scoped telco users of that tenant.
    for (const [k, e] of cache) if (e.principal.tenantId === tenantId) cache.delete(k);
  };

  directory.onChange((change: DirectoryChange) => {
    if (change.op === 'reset') return forgetAll();
    const entity = change.op === 'put' ? change.after : change.before;
    switch (change.kind) {
      case 'extension':
        return forgetOwner(`ext:${entity.tenantId}:${(entity as unknown as Extension).ext}`);
      case 'telcoUser':
        return forgetOwner(`telco:${entity.id}`);
      case 'tenant':
        return forgetTenant(Number(entity.id));
      case 'role':
        return forgetAll();
    }
  });

  const clear = () => {
    lockout.clear();
    forgetAll();
  };
  runtime.onReset(clear);

  function verify(username: string, secret: string): { principal: Principal; owner: string } | null {
    const account = accountOf(directory, username);
    if (!account?.secretHash || !verifySecret(secret, account.secretHash)) return null;
    return account;
  }

  const remember = (cacheKey: string, entry: CacheEntry) => {
    if (cache.size >= CACHE_MAX) forgetAll();
    cache.set(cacheKey, entry);
    const keys = byOwner.get(entry.owner) ?? new Set<string>();
    keys.add(cacheKey);
    byOwner.set(entry.owner, keys);
  };
  const refuseIfLocked = (username: string, ip: string) => {
    const locked = lockout.lockedFor(username, ip);
    if (locked > 0) throw new LockedOutError(Math.ceil(locked / 1000));
  };

  function authenticateEntry(username: string, secret: string, ip: string): CacheEntry {
    refuseIfLocked(username, ip);
    const cacheKey = sha256(`${username}\u0000${secret}`);
    const hit = cache.get(cacheKey);
    if (hit) return hit;
    const found = verify(username, secret);
    if (!found) {
      const lockedNow = lockout.fail(username, ip);
      if (lockedNow > 0 && runtime.telemetry) runtime.telemetry.lockouts++;
      if (lockedNow > 0) throw new LockedOutError(Math.ceil(lockedNow / 1000));
      throw new UnauthorizedError();
    }
    remember(cacheKey, found);
    return found;
  }

  return {
    clear,
    authenticate: (username, secret, ip) => authenticateEntry(username, secret, ip).principal,
    authenticateBasic(header, digest, ip) {
      const cacheKey = `basic:${digest}`;
      const hit = cache.get(cacheKey);
      if (hit) {
        refuseIfLocked(hit.username!, ip);
        return hit.principal;
      }
      const creds = parseBasic(header);
      if (!creds) return null;
      const found = authenticateEntry(creds.username, creds.secret, ip);
      remember(cacheKey, { principal: found.principal, owner: found.owner, username: creds.username });
      return found.principal;
    },
  };
}

const shared = new WeakMap<object, Authenticator>();

/** The one authenticator of a runtime: both APIs and both sockets share its lock-outs and cache. */
export function authenticatorFor(runtime: RuntimeDeps): Authenticator {
  const existing = shared.get(runtime);
  if (existing) return existing;
  const created = createAuthenticator(runtime);
  shared.set(runtime, created);
  return created;
}
