import type { FastifyRequest } from 'fastify';
import type { CcPermission, Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import type { Extension, Tenant } from '../../directory/model.js';
import { forbiddenError, notFoundError, unauthorized } from './errors.js';
import { requestPrincipal } from '../auth/request-principal.js';

/** The contact-center caller, which the Bearer hook noted on the request. */
export function principal(req: FastifyRequest): Principal {
  const p = requestPrincipal(req);
  if (!p) throw unauthorized();
  return p;
}

/** `API` plus at least one of the alternatives (none: `API` alone). */
export function requirePermission(p: Principal, ...alternatives: CcPermission[]): void {
  const has = (x: CcPermission) => p.ccPermissions.includes(x);
  if (!has('API') || (alternatives.length > 0 && !alternatives.some(has))) throw forbiddenError();
}

/** The tenant named by a `tenants/<uuid>` path: telco users reach any, everyone else only their own. */
export function pathTenant(directory: Directory, p: Principal, uuid: string): Tenant {
  const t = directory.tenantByCcUuid(uuid);
  if (!t) throw notFoundError();
  if (p.authority !== 'telco' && p.tenantId !== t.tenantId) throw forbiddenError();
  return t;
}

/** The caller's own tenant, for the short (tenant-level) paths. */
export function ownTenant(directory: Directory, p: Principal): Tenant {
  const t = p.tenantId === undefined ? undefined : directory.tenant(p.tenantId);
  if (!t) throw forbiddenError();
  return t;
}

/** An extension of the tenant by its uuid. */
export function tenantExtension(directory: Directory, tenant: Tenant, uuid: string): Extension {
  const e = directory.extensionByUuid(uuid);
  if (!e || e.tenantId !== tenant.tenantId) throw notFoundError();
  return e;
}

/** Agents act on themselves; tenant admins and telco users act on any agent of the tenant. */
export function requireActOn(p: Principal, ext: Extension): void {
  if (p.authority === 'telco' || p.authority === 'scopedTelco' || p.authority === 'tenantAdmin') return;
  if (p.tenantId === ext.tenantId && p.ext === ext.ext) return;
  throw forbiddenError();
}
