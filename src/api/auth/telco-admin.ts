import type { Principal } from '../../core/permissions.js';
import type { Authenticator } from './authenticator.js';
import { parseBasic } from './usernames.js';

/** An unscoped telco user holding SystemManagement or TenantBasicOrAdvanceManagement. */
export function isTelcoAdmin(p: Principal): boolean {
  return (
    p.authority === 'telco' && (p.telcoPermissions.includes('SM') || p.telcoPermissions.includes('TBAM'))
  );
}

/**
 * The telco administrator an operator route's HTTP Basic credentials name, or null: no or wrong
 * credentials, a lock-out, or a user who is no administrator are all just "not allowed" there
 * (`GET /metrics` with --metrics-auth, `GET /cluster`). Failures count toward the lock-out.
 */
export async function telcoAdminOf(
  auth: Authenticator,
  authorization: string | undefined,
  ip: string,
): Promise<Principal | null> {
  const creds = parseBasic(authorization);
  if (!creds) return null;
  const principal = await Promise.resolve()
    .then(() => auth.authenticate(creds.username, creds.secret, ip))
    .catch(() => null);
  return principal && isTelcoAdmin(principal) ? principal : null;
}
