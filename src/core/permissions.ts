/**
 * Authorities and permissions of both APIs. Every access decision goes through `Principal`.
 */
export const TELCO_PERMISSIONS = ['TBAM', 'SM', 'EM', 'SBAM'] as const;
export type TelcoPermission = (typeof TELCO_PERMISSIONS)[number];

/** Contact-center permissions, exactly as the spec names them. */
export const CC_PERMISSIONS = [
  'API',
  'Tenant Edit',
  'Tenants View',
  'Voice IQs View',
  'Voice OQs View',
  'Conditional Routes View',
  'VRQs View',
  'Calls Listing View',
  'Calls View',
  'Agent Control',
  'Call Control',
  'Agent Events',
  'Call Events',
  'Inbound Queue Events',
] as const;
export type CcPermission = (typeof CC_PERMISSIONS)[number];

/** The authorities named by the voice spec. */
export type Authority =
  | 'telco' // Telco user (not scoped)
  | 'scopedTelco' // Telco user with tenant scope
  | 'tenantAdmin' // Tenant Admin Call Control User
  | 'user' // Non-admin Call Control User
  | 'location'; // a location extension

export interface Principal {
  /**
   * Who this is, whatever spelling of the username was typed: `ext:<tenantId>:<ext>` or
   * `telco:<name>`. Lock-outs, limits and caches are keyed on it, never on the typed name.
   */
  id: string;
  authority: Authority;
  /** Login name as given (the subject of tokens, shown in records such as `createdBy`). */
  username: string;
  /** Set for every authority except an unscoped telco user. */
  tenantId?: number;
  /** Own extension for tenant users and locations. */
  ext?: string;
  telcoPermissions: readonly TelcoPermission[];
  /** Scoped telco with CallControl. */
  callControl: boolean;
  ccPermissions: readonly CcPermission[];
}

export const isTelco = (p: Principal) => p.authority === 'telco' || p.authority === 'scopedTelco';
export const isTenantMember = (p: Principal) =>
  p.authority === 'tenantAdmin' || p.authority === 'user' || p.authority === 'location';

/**
 * Visibility rule tokens used by the v1 root table and resource authority tables:
 * `T:TBAM` telco holding TBAM (scoped or not), `ST:TBAM` scoped telco holding TBAM, `ST:CC` scoped
 * telco with CallControl, `TA`, `U` (non-admin users and locations), `T:*` any telco,
 * `UT:<perm>` an unscoped telco holding perm (the spec's "Telco(...)"), `UT:*` any unscoped telco.
 */
export type AccessRule = string;

export function allows(p: Principal, rules: readonly AccessRule[]): boolean {
  for (const r of rules) {
    if (r === 'TA' && p.authority === 'tenantAdmin') return true;
    if (r === 'U' && (p.authority === 'user' || p.authority === 'location')) return true;
    if (r === 'T:*' && isTelco(p)) return true;
    if (r === 'ST:CC' && p.authority === 'scopedTelco' && p.callControl) return true;
    if (r === 'UT:*' && p.authority === 'telco') return true;
    if (
      r.startsWith('UT:') &&
      p.authority === 'telco' &&
      p.telcoPermissions.includes(r.slice(3) as TelcoPermission)
    ) {
      return true;
    }
    if (r.startsWith('T:') && isTelco(p) && p.telcoPermissions.includes(r.slice(2) as TelcoPermission)) {
      return true;
    }
    if (
      r.startsWith('ST:') &&
      p.authority === 'scopedTelco' &&
      p.telcoPermissions.includes(r.slice(3) as TelcoPermission)
    ) {
      return true;
    }
  }
  return false;
}

/** May this principal act inside the given tenant at all? */
export function inTenant(p: Principal, tenantId: number): boolean {
  if (p.authority === 'telco') return true;
  return p.tenantId === tenantId;
}
