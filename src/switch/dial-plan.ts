/**
 * The dial plan (docs/switch.md): what a string of dialed digits reaches inside a tenant.
 *
 * 1. an extension of the tenant (user, location, ACD, call group, auto attendant);
 * 2. an emergency number of the tenant (default 911, 112), dialed as is or after the outside prefix;
 * 3. `+` and an E.164 number: an outside number;
 * 4. the outside-line prefix `9` and at least three digits: an outside number;
 * 5. anything else: unknown (callError).
 *
 * Lenient targets (an outbound-queue dial, a queue redirect) also take a bare national or
 * international number of 7 digits or more as an outside number.
 */
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';

export const OUTSIDE_PREFIX = '9';
export const DEFAULT_EMERGENCY_NUMBERS = ['911', '112'] as const;

export type Destination =
  | { kind: 'extension'; ext: Extension }
  | { kind: 'outside'; number: string; emergency: boolean }
  | { kind: 'unknown' };

const DIALABLE = /^\+?[0-9*#]{1,32}$/;

/** Digits a phone or an API client may send (`+`, digits, `*`, `#`). */
export const isDialable = (s: string): boolean => DIALABLE.test(s);

export function emergencyNumbers(dir: Directory, tenantId: number): readonly string[] {
  const configured = dir.tenant(tenantId)?.emergencyNumbers;
  return configured && configured.length > 0 ? configured : DEFAULT_EMERGENCY_NUMBERS;
}

export function resolveDialed(
  dir: Directory,
  tenantId: number,
  dialed: string,
  lenient = false,
): Destination {
  const s = dialed.trim();
  if (!isDialable(s)) return { kind: 'unknown' };
  const ext = dir.extension(tenantId, s);
  if (ext && ext.enabled !== false) return { kind: 'extension', ext };
  const emergency = emergencyNumbers(dir, tenantId);
  if (emergency.includes(s)) return { kind: 'outside', number: s, emergency: true };
  if (s.startsWith('+') && s.length >= 4)
    return { kind: 'outside', number: outsideNumber(s), emergency: false };
  if (lenient && /^[0-9]{7,}$/.test(s))
    return { kind: 'outside', number: outsideNumber(s), emergency: false };
  if (s.startsWith(OUTSIDE_PREFIX) && /^[0-9]{3,}$/.test(s.slice(1))) {
    const rest = s.slice(1);
    if (emergency.includes(rest)) return { kind: 'outside', number: rest, emergency: true };
    return { kind: 'outside', number: outsideNumber(rest), emergency: false };
  }
  return { kind: 'unknown' };
}

/**
 * Canonical form of an outside number: E.164 when it can be told (`+1` for 10-digit North American
 * numbers, `011` international access), the digits as given otherwise (short codes).
 */
export function outsideNumber(raw: string): string {
  const s = raw.trim();
  if (s.startsWith('+')) return `+${s.slice(1).replace(/[^0-9]/g, '')}`;
  const d = s.replace(/[^0-9*#]/g, '');
  if (/^[0-9]{10}$/.test(d)) return `+1${d}`;
  if (/^1[0-9]{10}$/.test(d)) return `+${d}`;
  if (/^011[0-9]{4,}$/.test(d)) return `+${d.slice(3)}`;
  return d;
}
