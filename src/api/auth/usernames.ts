import type { Directory } from '../../directory/directory.js';

/** Who a login name designates, before any secret is checked. */
export type LoginTarget = { kind: 'telco'; name: string } | { kind: 'tenant'; tenantId: number; ext: string };

/**
 * The resolved principal a login target names (`Principal.id`): every spelling of one user gives
 * the same id, so lock-outs, limits and caches keyed on it cannot be walked around.
 */
export function principalIdOf(target: LoginTarget): string {
  return target.kind === 'telco' ? `telco:${target.name}` : `ext:${target.tenantId}:${target.ext}`;
}

/**
 * The username forms of the voice spec: `<ext>@<tenantId>`, `<ext>@<tenantId>.ID`,
 * `<ext>@<DID digits>.DID`, `<ext>@<web login url>.URI` (suffixes uppercase, as the spec says),
 * and telco logins (no `@`). Returns null when the name designates nobody.
 */
export function resolveUsername(directory: Directory, username: string): LoginTarget | null {
  const at = username.lastIndexOf('@');
  if (at < 0) return username.length > 0 ? { kind: 'telco', name: username } : null;
  const ext = username.slice(0, at);
  const domain = username.slice(at + 1);
  if (!ext || !domain) return null;
  const tenantId = tenantOfDomain(directory, domain);
  return tenantId === undefined ? null : { kind: 'tenant', tenantId, ext };
}

function tenantOfDomain(directory: Directory, domain: string): number | undefined {
  let m = /^(\d+)(?:\.ID)?$/.exec(domain);
  if (m) return Number(m[1]);
  m = /^\+?(\d+)\.DID$/.exec(domain);
  if (m) return directory.tenantByDid(m[1])?.tenantId;
  m = /^(.+)\.URI$/.exec(domain);
  if (m) return directory.tenantByUrl(m[1])?.tenantId;
  return undefined;
}

/** `Authorization: Basic base64(user:pass)` -> credentials, or null when absent or malformed. */
export function parseBasic(header: string | undefined): { username: string; secret: string } | null {
  if (!header) return null;
  const m = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return null;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { username: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}
