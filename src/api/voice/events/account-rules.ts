import { parseAccountId } from '../../../core/accounts.js';
import { forbidden, invalid } from '../../../core/errors.js';
import type { Principal } from '../../../core/permissions.js';
import type { Directory } from '../../../directory/directory.js';
import type { Extension } from '../../../directory/model.js';
import type { AccountKind } from './subscriptions.js';

const TENANTLESS_TOKENS = ['ALL_CALL_GROUP_EXTENSIONS', 'ALL_AA_EXTENSIONS', 'ALL_ACD_EXTENSIONS', 'ALL'];

const isNonAdmin = (p: Principal) => p.authority === 'user' || p.authority === 'location';

/**
 * Checks one account a set wants to watch (spec: Event management rules) and returns its
 * canonical form. Accounts belong to the set's tenant; a non-admin watches only their own
 * extension for call and presence events; park locations are any of the tenant's.
 */
export function checkAccount(
  kind: AccountKind,
  raw: string,
  tenantId: number,
  p: Principal,
  directory: Directory,
): string {
  const param = [{ type: 'accountId', value: raw }];
  if (kind === 'park') {
    const m = /^PL(\d+)@(\d+)$/i.exec(raw);
    if (!m)
      throw invalid('INVALID_ACCOUNT', `"${raw}" is not a park location account (PL<n>@<tenantId>).`, param);
    if (Number(m[2]) !== tenantId)
      throw forbidden('ACCOUNT_NOT_IN_TENANT', `${raw} is not in tenant ${tenantId}.`, param);
    const n = Number(m[1]);
    if (!directory.parkLocations(tenantId).includes(n)) {
      throw invalid('UNKNOWN_ACCOUNT', `Tenant ${tenantId} has no park location ${n}.`, param);
    }
    return `PL${n}@${tenantId}`;
  }
  const all = /^ALL_USERS@(\d+)$/.exec(raw);
  if (TENANTLESS_TOKENS.includes(raw) || all) {
    if (isNonAdmin(p))
      throw forbidden('OWN_EXTENSION_ONLY', 'A non-admin user may watch only their own extension.', param);
    if (all && Number(all[1]) !== tenantId) {
      throw forbidden('ACCOUNT_NOT_IN_TENANT', `${raw} is not in tenant ${tenantId}.`, param);
    }
    return raw;
  }
  const ref = parseAccountId(raw);
  if (!ref) throw invalid('INVALID_ACCOUNT', `"${raw}" is not an account id (<ext>@<tenantId>).`, param);
  if (ref.tenantId !== tenantId)
    throw forbidden('ACCOUNT_NOT_IN_TENANT', `${raw} is not in tenant ${tenantId}.`, param);
  if (isNonAdmin(p) && ref.ext !== p.ext) {
    throw forbidden('OWN_EXTENSION_ONLY', 'A non-admin user may watch only their own extension.', param);
  }
  if (!directory.extension(tenantId, ref.ext)) {
    throw invalid('UNKNOWN_ACCOUNT', `Tenant ${tenantId} has no extension ${ref.ext}.`, param);
  }
  return `${ref.ext}@${tenantId}`;
}

/** Each of `raw` checked by checkAccount, canonical and without repeats (a set's or a webhook's list). */
export function checkAccounts(
  kind: AccountKind,
  raw: readonly string[],
  tenantId: number,
  p: Principal,
  directory: Directory,
): string[] {
  return [...new Set(raw.map((a) => checkAccount(kind, a, tenantId, p, directory)))];
}

const TOKEN_TYPES: Record<string, (e: Extension) => boolean> = {
  ALL: () => true,
  ALL_USERS: (e) => e.type === 'userExt' || e.type === 'locationExt',
  ALL_CALL_GROUP_EXTENSIONS: (e) => e.type === 'groupExt',
  ALL_AA_EXTENSIONS: (e) => e.type === 'autoAttendantExt',
  ALL_ACD_EXTENSIONS: (e) => e.type === 'acdExt',
};

/** The concrete extensions behind a set's accounts (group tokens expanded), for status reads. */
export function expandAccounts(
  accounts: Iterable<string>,
  tenantId: number,
  directory: Directory,
): Extension[] {
  const out = new Map<string, Extension>();
  const exts = directory.extensions(tenantId);
  for (const a of accounts) {
    const token = a.startsWith('ALL_USERS@') ? 'ALL_USERS' : a;
    const pick = TOKEN_TYPES[token];
    if (pick) for (const e of exts.filter(pick)) out.set(e.ext, e);
    else {
      const ref = parseAccountId(a);
      const e = ref && directory.extension(tenantId, ref.ext);
      if (e) out.set(e.ext, e);
    }
  }
  return [...out.values()];
}
