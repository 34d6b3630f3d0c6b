/** Account ids of the voice platform: `<ext>@<tenantId>`, `PL<n>@<tenantId>`, group tokens. */
export interface AccountRef {
  ext: string;
  tenantId: number;
}

export const accountId = (ext: string, tenantId: number): string => `${ext}@${tenantId}`;
export const parkAccountId = (n: number, tenantId: number): string => `PL${n}@${tenantId}`;

const ACCOUNT_RE = /^([^@\s]+)@(\d+)$/;

export function parseAccountId(id: string): AccountRef | null {
  const m = ACCOUNT_RE.exec(id);
  if (!m) return null;
  return { ext: m[1], tenantId: Number(m[2]) };
}

/** `PL2`, `2` -> 2; anything else -> null. */
export function parseParkLocation(s: string): number | null {
  const m = /^(?:PL)?(\d{1,4})$/i.exec(s.trim());
  return m ? Number(m[1]) : null;
}

export const GROUP_TOKENS = [
  'ALL_CALL_GROUP_EXTENSIONS',
  'ALL_AA_EXTENSIONS',
  'ALL_ACD_EXTENSIONS',
  'ALL',
] as const;
export type GroupToken = (typeof GROUP_TOKENS)[number] | 'ALL_USERS';
