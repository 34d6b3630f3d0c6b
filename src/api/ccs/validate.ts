import { badRequest } from './errors.js';

type Body = Record<string, unknown>;

export function body(raw: unknown): Body {
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Body) : {};
}

/** `true`/`false` text (JSON booleans accepted too); undefined when absent. */
export function boolText(b: Body, key: string): boolean | undefined {
  const v = b[key];
  if (v === undefined) return undefined;
  if (v === 'true' || v === true) return true;
  if (v === 'false' || v === false) return false;
  throw badRequest(`${key} must be true or false`);
}

/** Numeric text (whole, non-negative; JSON integers accepted too) within bounds; undefined when absent. */
export function numericText(
  b: Body,
  key: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): string | undefined {
  const v = b[key];
  if (v === undefined) return undefined;
  const s = typeof v === 'number' && Number.isInteger(v) ? String(v) : typeof v === 'string' ? v.trim() : '';
  if (!/^\d{1,15}$/.test(s) || Number(s) < min || Number(s) > max) {
    throw badRequest(
      max < Number.MAX_SAFE_INTEGER
        ? `${key} must be a number from ${min} to ${max}`
        : `${key} must be a number`,
    );
  }
  return String(Number(s));
}

export function oneOf<T extends string>(b: Body, key: string, values: readonly T[]): T | undefined {
  const v = b[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !values.includes(v as T))
    throw badRequest(`${key} must be one of ${values.join(', ')}`);
  return v as T;
}

export function text(b: Body, key: string): string | undefined {
  const v = b[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw badRequest(`${key} must be text`);
  return v;
}

export function requiredText(b: Body, key: string): string {
  const v = text(b, key);
  if (!v) throw badRequest(`${key} is required`);
  return v;
}
