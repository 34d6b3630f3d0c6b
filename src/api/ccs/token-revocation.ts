import type { Logger } from 'pino';
import type { Directory, DirectoryChange } from '../../directory/directory.js';
import type { Extension, TelcoUser } from '../../directory/model.js';
import { principalIdOf, resolveUsername } from '../auth/index.js';
import type { TokenService } from './tokens.js';

/**
 * Tokens die with the credentials they were granted for: a PIN or password change, disabling or
 * removing a user revokes every token issued to that user, under whatever spelling it was asked
 * for. (A disabled user's token was already refused while disabled; now it stays dead.)
 */
export function revokeTokensOnCredentialChange(
  directory: Directory,
  tokens: TokenService,
  log: Logger,
): void {
  directory.onChange((change) => {
    const id = revokedPrincipal(change);
    if (!id) return;
    const ofPrincipal = (subject: string) => {
      const target = resolveUsername(directory, subject);
      return target !== null && principalIdOf(target) === id;
    };
    tokens.revoke(ofPrincipal).catch((err: unknown) => log.error({ err }, 'token revocation failed'));
  });
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
