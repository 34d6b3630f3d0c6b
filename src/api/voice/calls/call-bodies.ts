import { parseParkLocation } from '../../../core/accounts.js';
import { invalid } from '../../../core/errors.js';

/** Field readers for call-control bodies: each failure is a 400 naming the field. */
export function field(body: unknown, name: string): unknown {
  return body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
}

const badField = (name: string, detail: string) =>
  invalid('INVALID_FIELD', `${name}: ${detail}.`, [{ type: 'field', value: name }]);

export function optionalString(body: unknown, name: string): string | undefined {
  const v = field(body, name);
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return String(v);
  if (typeof v !== 'string') throw badField(name, 'must be a string');
  return v;
}

export function requiredString(body: unknown, name: string): string {
  const v = optionalString(body, name);
  if (v === undefined)
    throw invalid('MISSING_FIELD', `${name} is required.`, [{ type: 'field', value: name }]);
  return v;
}

export function oneOf<T extends string>(body: unknown, name: string, values: readonly T[], fallback?: T): T {
  const v = optionalString(body, name) ?? fallback;
  if (v === undefined)
    throw invalid('MISSING_FIELD', `${name} is required.`, [{ type: 'field', value: name }]);
  if (!values.includes(v as T)) throw badField(name, `must be one of ${values.join(', ')}`);
  return v as T;
}

/** `playPrompt` is the string `true` or `false` (a JSON boolean is accepted too). */
export function optionalBooleanString(body: unknown, name: string): boolean | undefined {
  const v = field(body, name);
  if (v === undefined || v === null || v === '') return undefined;
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw badField(name, 'must be true or false');
}

export function parkLocationField(body: unknown, name: string, required: boolean): number | undefined {
  const raw = required ? requiredString(body, name) : optionalString(body, name);
  if (raw === undefined) return undefined;
  const n = parseParkLocation(raw);
  if (n === null) throw badField(name, 'must be a park location number');
  return n;
}
