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
 * the tenant, which may give it to another tenant, whose 101 the token would otherwise become.
 */
export function revokeTokensOnCredentialChange(
  directory: Directory,
  tokens: TokenService,
  log: Logger,
): void {
  directory.onChange((change) => {
    const revoke = (matches: (subject: string) => boolean) =>
      tokens.revoke(matches).catch((err: unknown) => log.error({ err }, 'token revocation failed'));
    const spellings = spellingsGone(change);
    if (spellings) revoke(spellings);
    const id = revokedPrincipal(change);
    if (!id) return;
    revoke((subject) => {
      const target = resolveUsername(directory, subject);
      return target !== null && principalIdOf(target) === id;
    });
  });
}

/**
 * The usernames a tenant change leaves designating someone else or nobody: those spelled through
 * the DID or login URL it no longer has, and every spelling of a removed tenant's users.
 */
function spellingsGone(change: DirectoryChange): ((subject: string) => boolean) | undefined {
  if (change.op === 'reset' || change.kind !== 'tenant' || !change.before) return undefined;
  const before = change.before as unknown as Tenant;
  const after = change.op === 'put' ? (change.after as unknown as Tenant) : undefined;
  const didGone =
    before.did !== undefined && normalizeNumber(before.did) !== normalizeNumber(after?.did ?? '');
  const url = before.webLoginUrl?.toLowerCase();
  const urlGone = url !== undefined && url !== after?.webLoginUrl?.toLowerCase();
  if (after && !didGone && !urlGone) return undefined;
  const did = normalizeNumber(before.did ?? '');
  return (subject) => {
    const at = subject.lastIndexOf('@');
    if (at < 0) return false;
    const domain = subject.slice(at + 1);
    const m = /^\+?(\d+)\.DID$/.exec(domain);
    // A North American DID is found with or without its country code 1 (directory.ts).
    if (m)
      return didGone && (m[1] === did || (did.length === 11 && did.startsWith('1') && m[1] === did.slice(1)));
    const u = /^(.+)\.URI$/.exec(domain);
    if (u) return urlGone && u[1]!.toLowerCase() === url;
    if (after) return false;
    const id = /^(\d+)(?:\.ID)?$/.exec(domain);
    return id !== null && Number(id[1]) === before.tenantId;
  };
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
