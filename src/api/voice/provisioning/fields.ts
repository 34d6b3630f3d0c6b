import { invalid } from '../../../core/errors.js';
import { ENUMS } from '../enums/enum-values.js';
import type { FieldType, ItemSchema } from '../hal/model.js';

/**
 * The item schema of a provisioning resource: every wire property with its type, whether a create
 * needs it, and whether the server owns it. One schema drives validation, filter keys and docs.
 */
export type FieldSpec = Scalar | ListField | ObjectField;

interface Common {
  /** A create (POST) must give it. */
  required?: boolean;
  /** Set by the server; ignored in bodies. */
  readOnly?: boolean;
  /** Accepted in bodies, never rendered (PINs). */
  writeOnly?: boolean;
  /** Used on create when absent. */
  default?: unknown;
  /** Only tenant admins and telco users may change it (a user editing their own record may not). */
  adminOnly?: boolean;
}

type Scalar = Common &
  (
    | { type: 'string'; pattern?: RegExp; hint?: string }
    | { type: 'integer'; min?: number; max?: number }
    | { type: 'boolean' }
    /** A value of one of the API's enums (`/api/v1/enums/{enumName}`). */
    | { type: 'enum'; enumName: string }
  );
interface ListField extends Common {
  type: 'list';
  of: FieldSpec;
}
interface ObjectField extends Common {
  type: 'object';
  fields: Fields;
}

export type Fields = Record<string, FieldSpec>;

/** Terse builders for the resource tables. */
export const f = {
  str: (o: Partial<Extract<Scalar, { type: 'string' }>> = {}): FieldSpec => ({ type: 'string', ...o }),
  int: (o: Partial<Extract<Scalar, { type: 'integer' }>> = {}): FieldSpec => ({ type: 'integer', ...o }),
  bool: (o: Common = {}): FieldSpec => ({ type: 'boolean', ...o }),
  enum: (enumName: string, o: Common = {}): FieldSpec => {
    if (!ENUMS[enumName]) throw new Error(`no enum ${enumName}`);
    return { type: 'enum', enumName, ...o };
  },
  list: (of: FieldSpec, o: Common = {}): FieldSpec => ({ type: 'list', of, ...o }),
  obj: (fields: Fields, o: Common = {}): FieldSpec => ({ type: 'object', fields, ...o }),
};

export const PATTERNS = {
  digits: { pattern: /^[0-9]{1,8}$/, hint: 'digits' },
  pin: { pattern: /^[0-9]{4,12}$/, hint: '4 to 12 digits' },
  e164: { pattern: /^\+[1-9][0-9]{6,14}$/, hint: 'an E.164 number such as +15555550100' },
  number: { pattern: /^\+?[0-9*#]{1,32}$/, hint: 'a dialable number' },
  mac: { pattern: /^([0-9a-fA-F]{2}[:-]?){5}[0-9a-fA-F]{2}$/, hint: 'a MAC address' },
  ipv4: { pattern: /^(\d{1,3}\.){3}\d{1,3}$/, hint: 'an IPv4 address' },
  cidr: { pattern: /^(\d{1,3}\.){3}\d{1,3}\/\d{1,2}$/, hint: 'an IPv4 subnet such as 10.0.0.0/24' },
  host: { pattern: /^[A-Za-z0-9.-]{1,253}$/, hint: 'a host name or address' },
  langCode: { pattern: /^[a-z]{2}(-[A-Z]{2})?$/, hint: 'a language code such as en or en-US' },
  time: { pattern: /^([01][0-9]|2[0-3]):[0-5][0-9]$/, hint: 'a time HH:MM' },
  prefix: { pattern: /^[0-9*#+]{0,16}$/, hint: 'a digit prefix' },
} as const;

const fieldError = (field: string, detail: string) =>
  invalid('INVALID_FIELD', `Field "${field}": ${detail}.`, [{ type: 'field', value: field }]);

export type Mode = 'create' | 'update';

/**
 * Validates a request body against the schema. Returns only the listed, writable properties (the
 * others are ignored, per the spec's conventions), with defaults filled on create.
 */
export function validateBody(fields: Fields, body: unknown, mode: Mode): Record<string, unknown> {
  if (body === undefined || body === null) body = {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw invalid('INVALID_BODY', 'The body must be a JSON object.', [{ type: 'field', value: '' }]);
  return validateObject(fields, body as Record<string, unknown>, mode, '');
}

function validateObject(
  fields: Fields,
  body: Record<string, unknown>,
  mode: Mode,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (spec.readOnly) continue;
    const path = prefix + name;
    const value = body[name];
    if (value === undefined) {
      if (mode === 'create' && spec.default !== undefined) out[name] = structuredClone(spec.default);
      else if (mode === 'create' && spec.required) throw fieldError(path, 'is required');
      continue;
    }
    if (value === null && !spec.required) {
      out[name] = null;
      continue;
    }
    out[name] = validateValue(spec, value, path);
  }
  return out;
}

function validateValue(spec: FieldSpec, value: unknown, path: string): unknown {
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') throw fieldError(path, 'must be a string');
      if (spec.required && value.trim() === '') throw fieldError(path, 'must not be empty');
      if (spec.pattern && !spec.pattern.test(value))
        throw fieldError(path, `must be ${spec.hint ?? `like ${spec.pattern}`}`);
      return value;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw fieldError(path, 'must be an integer');
      if (spec.min !== undefined && value < spec.min) throw fieldError(path, `must be at least ${spec.min}`);
      if (spec.max !== undefined && value > spec.max) throw fieldError(path, `must be at most ${spec.max}`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw fieldError(path, 'must be true or false');
      return value;
    case 'enum': {
      const names = (ENUMS[spec.enumName] ?? []).map((v) => (Array.isArray(v) ? v[0] : v));
      if (typeof value !== 'string' || !names.includes(value))
        throw fieldError(path, `must be a value of enum ${spec.enumName}: ${names.join(', ')}`);
      return value;
    }
    case 'list':
      if (!Array.isArray(value)) throw fieldError(path, 'must be an array');
      return value.map((v, i) => validateValue(spec.of, v, `${path}[${i}]`));
    case 'object':
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw fieldError(path, 'must be an object');
      return validateObject(spec.fields, value as Record<string, unknown>, 'create', `${path}.`);
  }
}

/** Fields a user acting on their own record may not change. */
export function adminOnlyFieldsIn(fields: Fields, patch: Record<string, unknown>): string[] {
  return Object.keys(patch).filter((k) => fields[k]?.adminOnly);
}

/** What `filter` may name: the scalar properties (enums filter as strings). */
export function filterSchema(fields: Fields, embeds: Record<string, ItemSchema> = {}): ItemSchema {
  const out: Record<string, FieldType> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (spec.writeOnly) continue;
    if (spec.type === 'string' || spec.type === 'enum') out[name] = 'string';
    else if (spec.type === 'integer' || spec.type === 'boolean') out[name] = spec.type;
  }
  return { fields: out, embeds };
}

/** Rendered properties: everything but write-only fields. */
export function visibleProps(fields: Fields, record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!fields[k]?.writeOnly) out[k] = v;
  return out;
}

/** A human description of a field for docs/provisioning.md. */
export function describeField(spec: FieldSpec): string {
  const flags = [
    spec.required ? 'required' : '',
    spec.readOnly ? 'read-only' : '',
    spec.writeOnly ? 'write-only' : '',
    spec.adminOnly ? 'admin-only' : '',
    spec.default !== undefined ? `default ${JSON.stringify(spec.default)}` : '',
  ].filter(Boolean);
  const type = (() => {
    switch (spec.type) {
      case 'enum':
        return `enum ${spec.enumName}`;
      case 'list':
        return `array of ${describeField(spec.of)}`;
      case 'object':
        return `object {${Object.keys(spec.fields).join(', ')}}`;
      case 'string':
        return spec.hint ? `string (${spec.hint})` : 'string';
      default:
        return spec.type;
    }
  })();
  return flags.length ? `${type}; ${flags.join(', ')}` : type;
}
