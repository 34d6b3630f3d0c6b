import type { CcPermission, Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import { resolveUsername } from '../auth/index.js';

/**
 * The principal behind a token's subject (the username it was issued to), read fresh from the
 * directory on every request so disabled users and changed roles take effect at once.
 * Mirrors the authenticator's rules, minus the secret check done when the token was issued.
 */
export function principalOfSubject(directory: Directory, username: string): Principal | null {
  const target = resolveUsername(directory, username);
  if (!target) return null;
  if (target.kind === 'telco') {
    const t = directory.telcoUser(target.name);
    if (!t?.enabled) return null;
    const scoped = t.scopedTenantId !== undefined;
    if (scoped && !directory.tenant(t.scopedTenantId!)?.active) return null;
    return {
      authority: scoped ? 'scopedTelco' : 'telco',
      username,
      tenantId: t.scopedTenantId,
      telcoPermissions: t.telcoPermissions,
      callControl: scoped && t.callControl,
      ccPermissions: t.ccPermissions,
    };
  }
  const ext = directory.extension(target.tenantId, target.ext);
  if (!directory.tenant(target.tenantId)?.active || !ext?.enabled) return null;
  if (ext.type !== 'userExt' && ext.type !== 'locationExt') return null;
  const perms = new Set<CcPermission>();
  for (const id of ext.ccRoleIds) for (const p of directory.get('role', id)?.permissions ?? []) perms.add(p);
  return {
    authority: ext.type === 'locationExt' ? 'location' : ext.admin ? 'tenantAdmin' : 'user',
    username,
    tenantId: ext.tenantId,
    ext: ext.ext,
    telcoPermissions: [],
    callControl: ext.type === 'userExt',
    ccPermissions: [...perms],
  };
}
