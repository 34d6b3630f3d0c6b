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
