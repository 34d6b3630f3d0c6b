import type { Principal } from '../../../core/permissions.js';
import type { Link } from './model.js';

/**
 * Templated links (docs/decisions.md §1.6): path variables the server knows for the requester
 * (its tenantId, its own extension) are filled; everything else stays a template, marked `templated: true`.
 */
export function fillTemplate(
  template: string,
  p: Principal | undefined,
  known: Record<string, string> = {},
): Link {
  const vars: Record<string, string> = { ...known };
  if (p?.tenantId !== undefined && vars.tenantId === undefined) vars.tenantId = String(p.tenantId);
  if (p?.ext !== undefined && vars.extension === undefined) vars.extension = p.ext;
  const href = template.replace(/\{([A-Za-z]\w*)\}/g, (whole, name: string) =>
    vars[name] !== undefined ? encodeURIComponent(vars[name]) : whole,
  );
  return /\{[^}]*\}/.test(href) ? { href, templated: true } : { href };
}

export const link = (href: string): Link => ({ href });

/**
 * A link set that depends only on the requester (its authority, permissions, tenant and extension)
 * and on static tables, built once per principal rather than on every request: the v1 root and
 * the tenant's collections ran a permission check and a template fill per link per request
 * (issue 19). Principals are frozen and replaced when the directory changes what they hold
 * (api/auth), so a principal's entry never goes stale and goes with it. Callers never change the
 * sets: the renderer copies top-level links and only reads the rest.
 */
export function perPrincipal<K, T>(build: (p: Principal, key: K) => T): (p: Principal, key: K) => T {
  const cache = new WeakMap<Principal, Map<K, T>>();
  return (p, key) => {
    let byKey = cache.get(p);
    if (!byKey) cache.set(p, (byKey = new Map()));
    let value = byKey.get(key);
    if (value === undefined) byKey.set(key, (value = build(p, key)));
    return value;
  };
}
