import type { CcPermission, Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import type { Extension, TelcoUser } from '../../directory/model.js';
import { principalIdOf, resolveUsername } from './usernames.js';

/** Who a username names, if that user may log in now: the principal and its stored hash. */
export interface Account {
  principal: Principal;
  secretHash: string | undefined;
}

/**
 * The one place a username becomes a Principal. Refused: unknown users, disabled users, users of
 * inactive tenants, and extensions that cannot log in. The secret is checked by the caller
 * (the authenticator for Basic and the password grant; a token was checked when it was issued).
 */
export function accountOf(directory: Directory, username: string): Account | null {
  const target = resolveUsername(directory, username);
  if (!target) return null;
  if (target.kind === 'telco') {
    const t = directory.telcoUser(target.name);
    if (!t?.enabled) return null;
    if (t.scopedTenantId !== undefined && !directory.tenant(t.scopedTenantId)?.active) return null;
    return { principal: telcoPrincipal(t, username), secretHash: t.passwordHash };
  }
  const ext = directory.extension(target.tenantId, target.ext);
  if (!directory.tenant(target.tenantId)?.active || !ext?.enabled) return null;
  if (ext.type !== 'userExt' && ext.type !== 'locationExt') return null;
  return { principal: tenantPrincipal(directory, ext, username), secretHash: ext.pinHash };
}

function tenantPrincipal(directory: Directory, ext: Extension, username: string): Principal {
  const perms = new Set<CcPermission>();
  for (const roleId of ext.ccRoleIds)
    for (const p of directory.get('role', roleId)?.permissions ?? []) perms.add(p);
  return Object.freeze({
    id: principalIdOf({ kind: 'tenant', tenantId: ext.tenantId, ext: ext.ext }),
    authority: ext.type === 'locationExt' ? 'location' : ext.admin ? 'tenantAdmin' : 'user',
    username,
    tenantId: ext.tenantId,
    ext: ext.ext,
    telcoPermissions: [],
    callControl: ext.type === 'userExt',
    ccPermissions: [...perms],
  });
}

function telcoPrincipal(t: TelcoUser, username: string): Principal {
  const scoped = t.scopedTenantId !== undefined;
  return Object.freeze({
    id: principalIdOf({ kind: 'telco', name: t.id }),
    authority: scoped ? 'scopedTelco' : 'telco',
    username,
    tenantId: t.scopedTenantId,
    telcoPermissions: [...t.telcoPermissions],
    callControl: scoped && t.callControl,
    ccPermissions: [...t.ccPermissions],
  });
}
