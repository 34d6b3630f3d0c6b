/** Small, explicit checks of simulator request bodies; each failure is a 400 with its own code. */
import { invalid } from '../../core/errors.js';

export type Body = Record<string, unknown>;

export function objectBody(body: unknown, required: boolean): Body {
  if (body === undefined || body === null) {
    if (required) throw invalid('INVALID_BODY', 'A JSON object body is required');
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalid('INVALID_BODY', 'The body must be a JSON object');
  return body as Body;
}

export function stringField(
  b: Body,
  key: string,
  opts: { required?: boolean; pattern?: RegExp } = {},
): string | undefined {
  const v = b[key];
  if (v === undefined || v === null) {
    if (opts.required) throw invalid(`MISSING_${snake(key)}`, `${key} is required`);
    return undefined;
  }
  if (typeof v !== 'string' || (opts.pattern && !opts.pattern.test(v))) {
    throw invalid(`INVALID_${snake(key)}`, `${key} is not valid`);
  }
  return v;
}

export function oneOf<T extends string>(
  b: Body,
  key: string,
  values: readonly T[],
  required = true,
): T | undefined {
  const v = b[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'string' || !values.includes(v as T)) {
    throw invalid(`INVALID_${snake(key)}`, `${key} must be one of ${values.join(', ')}`);
  }
  return v as T;
}

export function intField(
  b: Body,
  key: string,
  min: number,
  max: number,
  required: boolean,
): number | undefined {
  const v = b[key];
  if (v === undefined && !required) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw invalid(`INVALID_${snake(key)}`, `${key} must be an integer from ${min} to ${max}`);
  }
  return v;
}

export function boolField(b: Body, key: string): boolean | undefined {
  const v = b[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') throw invalid(`INVALID_${snake(key)}`, `${key} must be true or false`);
  return v;
}

const snake = (key: string) => key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
