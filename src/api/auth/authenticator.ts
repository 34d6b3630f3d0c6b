import { KeyedChain } from '../../core/keyed-chain.js';
import type { Principal } from '../../core/permissions.js';
import type { Telemetry } from '../../core/telemetry.js';
import { dummySecretHash, sha256, verifySecret } from '../../core/secrets.js';
import type { Directory, DirectoryChange } from '../../directory/directory.js';
import type { Extension, TelcoUser } from '../../directory/model.js';
import { LockedOutError, UnauthorizedError } from './errors.js';
import type { SharedLockouts } from '../../core/shared-security.js';
import { Lockout, lockoutKey, UNKNOWN_PRINCIPAL } from './lockout.js';
import { UnlockedPairs } from './unlocked-pairs.js';
import { accountOf } from './principals.js';
import { parseBasic, principalIdOf } from './usernames.js';

export interface Authenticator {
  /** Verifies credentials from client `ip`; rejects with UnauthorizedError or LockedOutError. */
  authenticate(username: string, secret: string, ip: string): Promise<Principal>;
  /**
   * The principal of a `Basic` Authorization header verified before, by its digest (`sha256` of
   * the header): a lookup and the lock-out check, no decoding, no key derivation. Undefined when
   * the header is not known, or (a cluster node) its lock-out must be asked of the database first
   * (then `verifyBasic`, which does so without a key derivation). Throws LockedOutError.
   */
  cachedBasic(digest: string, ip: string): Principal | undefined;
  /** Verifies a `Basic` header that `cachedBasic` did not know; null when it is not valid Basic. */
  verifyBasic(header: string, digest: string, ip: string): Promise<Principal | null>;
  /**
   * Key derivations run so far. Every verification costs exactly one, whether the user exists or
   * not (unknown users are checked against a dummy hash), so failures cannot be told apart by time.
   */
  derivations(): number;
  /** Lock-outs and cached credentials are forgotten (simulator reset). */
  clear(): void;
}

export interface AuthenticatorOptions {
  /** The lock-out clock (real time). */
  now?: () => number;
  /** The secret check; the asynchronous scrypt unless a test watches it. */
  verify?: (secret: string, hash: string) => Promise<boolean>;
}

/** What the authenticator needs of the running server (the composition root passes it). */
interface RuntimeDeps {
  directory: Directory;
  config: { lockoutFailures: number; lockoutWindowMs: number; lockoutPeriodMs: number };
  /** Registers state to clear on a simulator reset. */
  onReset(hook: () => void): void;
  /** Counts lock-outs for the operator's metrics. */
  telemetry?: Pick<Telemetry, 'lockouts'>;
  /** In a cluster: failed logins counted over every node (docs/cluster.md). */
  sharedLockouts?: SharedLockouts;
}

const CACHE_MAX = 50_000;

/**
 * Credential verification shared by both APIs. A verified credential is cached by a digest, so a
 * request costs no key derivation; a user's entries are dropped whenever the directory changes
 * that user, their tenant or the roles. Lock-outs count per resolved principal and client IP.
 */
export function createAuthenticator(runtime: RuntimeDeps, opts: AuthenticatorOptions = {}): Authenticator {
  const { directory, config } = runtime;
  const verify = opts.verify ?? verifySecret;
  // Made now, so that not even the first unknown user waits for it (one derivation, off the loop).
  dummySecretHash().catch(() => {});
  const rule = () => ({
    failures: config.lockoutFailures,
    windowMs: config.lockoutWindowMs,
    periodMs: config.lockoutPeriodMs,
  });
  const now = opts.now ?? Date.now;
  const lockout = new Lockout(rule, now);
  const shared = runtime.sharedLockouts;
  // A lock-out decided on any node also refuses credentials this node verified before.
  shared?.onLocked((k, until) => lockout.lockUntil(k, until));
  // A node that may have missed such a lock-out (cut off from NATS) asks the database instead.
  const unlocked = shared ? new UnlockedPairs(() => shared.hearing(), CACHE_MAX) : undefined;
  /**
   * Verified credentials by digest, and the digests of each principal (to drop them). A `Basic`
   * header is keyed by its own digest, as the request hook computed it (no key is built per
   * request); other credentials by the digest of `username NUL secret`. A header never contains
   * NUL, so the two kinds never share a key.
   */
  const cache = new Map<string, Principal>();
  const byPrincipal = new Map<string, Set<string>>();
  /** The verifications per (principal, IP): the next one waits for the one running. */
  const running = new KeyedChain<string>();
  let derivations = 0;

  const forgetPrincipal = (id: string) => {
    for (const k of byPrincipal.get(id) ?? []) cache.delete(k);
    byPrincipal.delete(id);
  };
  const forgetAll = () => {
    cache.clear();
    byPrincipal.clear();
  };
  const forgetTenant = (tenantId: number) => {
    for (const id of [...byPrincipal.keys()]) if (id.startsWith(`ext:${tenantId}:`)) forgetPrincipal(id);
    // Scoped telco users of that tenant.
    for (const [k, p] of cache) if (p.tenantId === tenantId) cache.delete(k);
  };

  directory.onChange((change: DirectoryChange) => {
    if (change.op === 'reset') return forgetAll();
    const entity = change.op === 'put' ? change.after : change.before;
    switch (change.kind) {
      case 'extension': {
        const e = entity as unknown as Extension;
        return forgetPrincipal(principalIdOf({ kind: 'tenant', tenantId: e.tenantId, ext: e.ext }));
      }
      case 'telcoUser':
        return forgetPrincipal(principalIdOf({ kind: 'telco', name: (entity as unknown as TelcoUser).id }));
      case 'tenant':
        return forgetTenant(Number(entity.id));
      case 'role':
        return forgetAll();
    }
  });

  const clear = () => {
    lockout.clear();
    unlocked?.clear();
    forgetAll();
    shared?.clear().catch(() => {});
  };
  runtime.onReset(clear);

  const remember = (cacheKey: string, principal: Principal) => {
    if (cache.size >= CACHE_MAX) forgetAll();
    cache.set(cacheKey, principal);
    const keys = byPrincipal.get(principal.id) ?? new Set<string>();
    keys.add(cacheKey);
    byPrincipal.set(principal.id, keys);
  };
  const locked = (ms: number) => new LockedOutError(Math.ceil(ms / 1000));
  const refuseIfLocked = (principalId: string, ip: string) => {
    const left = lockout.lockedFor(principalId, ip);
    if (left > 0) throw locked(left);
  };
  /** Whether a cached principal may be used as it is: not locked here, nor known to be elsewhere. */
  const usable = (hit: Principal, ip: string) => {
    refuseIfLocked(hit.id, ip);
    return unlocked === undefined || unlocked.has(lockoutKey(hit.id, ip));
  };

  /** Milliseconds left of a lock-out the shared database knows of (a cluster), or 0. */
  async function lockedOnAnyNode(principalId: string, ip: string): Promise<number> {
    const k = lockoutKey(principalId, ip);
    const until = await shared!.lockedUntil(k, now());
    if (until) lockout.lockUntil(k, until);
    return until ? until - now() : 0;
  }
  async function refuseIfLockedOnAnyNode(principalId: string, ip: string): Promise<void> {
    const left = await lockedOnAnyNode(principalId, ip);
    if (left > 0) throw locked(left);
  }
  /**
   * Takes one of the pair's guesses over every node before its verification runs; throws
   * LockedOutError when the pair is locked, or for a second when its guesses under way leave no
   * room (they may lock it).
   */
  async function guessOnEveryNode(principalId: string, ip: string): Promise<string> {
    const taken = await shared!.guess(lockoutKey(principalId, ip), now(), rule());
    if ('guess' in taken) return taken.guess;
    throw locked(Math.max(1, taken.lockedUntil - now()));
  }
  /** Ends a guess; a failed one counts over every node: the lock-out length when it locks the pair now. */
  async function settleOnEveryNode(principalId: string, ip: string, guess: string, failed: boolean) {
    const k = lockoutKey(principalId, ip);
    const until = await shared!.settle(k, guess, failed, now(), rule());
    if (!until) return 0;
    lockout.lockUntil(k, until);
    return until - now();
  }

  /**
   * The slow path: resolve the username, then one key derivation against the user's hash, or the
   * dummy hash when there is no such user, so both cost the same. Verifications of one
   * (principal, IP) run one after another: parallel guesses cannot all pass the lock-out check
   * before the first failure counts, and parallel first logins cost one derivation. In a cluster
   * each also takes one of the pair's guesses over every node first (guesses sent to several
   * nodes at once).
   */
  function verifyCredentials(username: string, secret: string, ip: string, cacheKey: string) {
    const account = accountOf(directory, username);
    const id = account?.principal.id ?? UNKNOWN_PRINCIPAL;
    return running.run(lockoutKey(id, ip), async (): Promise<Principal> => {
      refuseIfLocked(id, ip);
      if (shared) {
        const stretch = shared.hearing();
        await refuseIfLockedOnAnyNode(id, ip);
        unlocked?.add(lockoutKey(id, ip), stretch);
      }
      const known = cache.get(cacheKey);
      if (known) return known;
      const guess = shared ? await guessOnEveryNode(id, ip) : undefined;
      // Given back not failed. One the database could not take back counts for 5 s: the login
      // is not refused for it.
      const giveBack = async () => {
        if (guess !== undefined) await settleOnEveryNode(id, ip, guess, false).catch(() => 0);
      };
      derivations++;
      let ok: boolean;
      try {
        ok = await verify(secret, account?.secretHash ?? (await dummySecretHash()));
      } catch (e) {
        await giveBack();
        throw e;
      }
      if (ok && account) {
        await giveBack();
        // The directory may have changed during the derivation (a PIN change, a disabled user).
        const current = accountOf(directory, username);
        if (!current || current.secretHash !== account.secretHash) throw new UnauthorizedError();
        remember(cacheKey, current.principal);
        return current.principal;
      }
      // Once an address is locked for unknown users, every failure from it answers as locked,
      // so whether a username exists cannot be learnt from the answers either.
      const failedNow =
        guess !== undefined
          ? // Not counted over every node (the database failed): counted here at least.
            await settleOnEveryNode(id, ip, guess, true).catch(() => lockout.fail(id, ip))
          : lockout.fail(id, ip);
      if (failedNow > 0 && runtime.telemetry) runtime.telemetry.lockouts++;
      const lockedNow =
        failedNow ||
        lockout.lockedFor(UNKNOWN_PRINCIPAL, ip) ||
        (shared ? await lockedOnAnyNode(UNKNOWN_PRINCIPAL, ip) : 0);
      if (lockedNow > 0) throw locked(lockedNow);
      throw new UnauthorizedError();
    });
  }

  return {
    clear,
    derivations: () => derivations,
    async authenticate(username, secret, ip) {
      const cacheKey = sha256(`${username}\u0000${secret}`);
      const hit = cache.get(cacheKey);
      if (!hit || !usable(hit, ip)) return verifyCredentials(username, secret, ip, cacheKey);
      return hit;
    },
    cachedBasic(digest, ip) {
      const hit = cache.get(digest);
      return hit && usable(hit, ip) ? hit : undefined;
    },
    async verifyBasic(header, digest, ip) {
      const creds = parseBasic(header);
      if (!creds) return null;
      return verifyCredentials(creds.username, creds.secret, ip, digest);
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
