import type { Logger } from 'pino';
import type { Directory, DirectoryChange } from '../../directory/directory.js';
import { normalizeNumber } from '../../directory/directory.js';
import type { Extension, TelcoUser, Tenant } from '../../directory/model.js';
import { principalIdOf, resolveUsername } from '../auth/index.js';
import type { TokenService } from './tokens.js';

/**
 * Tokens die with the credentials they were granted for: a PIN or password change, disabling or
 * removing a user revokes every token issued to that user, under whatever spelling it was asked
 * for. (A disabled user's token was already refused while disabled; now it stays dead.)
 * A token names its user as it was typed, and is resolved again on every use: one issued through
 * a tenant's DID or login URL (`101@<DID>.DID`, `101@<url>.URI`) dies when that DID or URL leaves
 * the tenant, which may give it to another tenant, whose 101 the token would otherwise become; so
 * does one whose DID or URL a reset of the whole world gave to another tenant.
 */
export function revokeTokensOnCredentialChange(
  directory: Directory,
  tokens: TokenService,
  log: Logger,
): void {
  /** Which tenant each DID and login URL named at the last change (a reset is told no more). */
  let identities = identitiesOf(directory);
  directory.onChange((change) => {
    const revoke = (matches: (subject: string) => boolean) =>
      tokens.revoke(matches).catch((err: unknown) => log.error({ err }, 'token revocation failed'));
    if (change.op === 'reset' || change.kind === 'tenant') {
      const before = identities;
      identities = identitiesOf(directory);
      const moved = spellingsMoved(before, identities);
      const removed = spellingsOfRemoved(change);
      if (moved || removed) revoke((subject) => !!moved?.(subject) || !!removed?.(subject));
    }
    const id = revokedPrincipal(change);
    if (!id) return;
    revoke((subject) => {
      const target = resolveUsername(directory, subject);
      return target !== null && principalIdOf(target) === id;
    });
  });
}

/** Every spelling of a removed tenant's users by its id (`160@1001`, `160@1001.ID`). */
function spellingsOfRemoved(change: DirectoryChange): ((subject: string) => boolean) | undefined {
  if (change.op !== 'remove' || change.kind !== 'tenant') return undefined;
  const { tenantId } = change.before as unknown as Tenant;
  return (subject) => {
    const at = subject.lastIndexOf('@');
    const id = /^(\d+)(?:\.ID)?$/.exec(subject.slice(at + 1));
    return at >= 0 && id !== null && Number(id[1]) === tenantId;
  };
}

/** Usernames spelled through one of `dids` (normalized) or one of `urls` (lower case). */
function spelledThrough(dids: string[], urls: string[]): (subject: string) => boolean {
  return (subject) => {
    const at = subject.lastIndexOf('@');
    if (at < 0) return false;
    const domain = subject.slice(at + 1);
    const m = /^\+?(\d+)\.DID$/.exec(domain);
    // A North American DID is found with or without its country code 1 (directory.ts).
    if (m)
      return dids.some(
        (did) => m[1] === did || (did.length === 11 && did.startsWith('1') && m[1] === did.slice(1)),
      );
    const u = /^(.+)\.URI$/.exec(domain);
    return u !== null && urls.includes(u[1]!.toLowerCase());
  };
}

/** Which tenant each DID (`did:`, normalized) and login URL (`url:`, lower case) names. */
function identitiesOf(directory: Directory): Map<string, number> {
  const ids = new Map<string, number>();
  for (const t of directory.tenants()) {
    if (t.did !== undefined) ids.set(`did:${normalizeNumber(t.did)}`, t.tenantId);
    if (t.webLoginUrl !== undefined) ids.set(`url:${t.webLoginUrl.toLowerCase()}`, t.tenantId);
  }
  return ids;
}

/**
 * The usernames spelled through a DID or login URL that no longer names the tenant it named
 * before a tenant change or a reset of the whole world: it names nobody now, or, given to another
 * tenant, that tenant's user of the same extension.
 */
function spellingsMoved(before: Map<string, number>, after: Map<string, number>) {
  const dids: string[] = [];
  const urls: string[] = [];
  for (const [key, tenantId] of before) {
    if (after.get(key) === tenantId) continue;
    if (key.startsWith('did:')) dids.push(key.slice(4));
    else urls.push(key.slice(4));
  }
  return dids.length + urls.length > 0 ? spelledThrough(dids, urls) : undefined;
}

interface LoginRecord {
  enabled: boolean;
}

/** The directory kinds that log in: where their secret is, and the principal they are. */
const LOGINS: Record<string, { secret: string; id: (before: never) => string }> = {
  extension: {
    secret: 'pinHash',
    id: (e: Extension) => principalIdOf({ kind: 'tenant', tenantId: e.tenantId, ext: e.ext }),
  },
  telcoUser: { secret: 'passwordHash', id: (t: TelcoUser) => principalIdOf({ kind: 'telco', name: t.id }) },
};

/** The principal whose tokens a directory change revokes, if any. */
function revokedPrincipal(change: DirectoryChange): string | undefined {
  if (change.op === 'reset' || !change.before || !Object.hasOwn(LOGINS, change.kind)) return undefined;
  const login = LOGINS[change.kind];
  const before = change.before as unknown as LoginRecord & Record<string, unknown>;
  if (change.op === 'put') {
    const after = change.after as unknown as LoginRecord & Record<string, unknown>;
    const disabled = before.enabled && !after.enabled;
    if (after[login.secret] === before[login.secret] && !disabled) return undefined;
  }
  return login.id(before as never);
}
