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
  /** Every rendered record carries it, though a body need not (the response schema requires it). */
  always?: boolean;
}

type Scalar = Common &
  (
    | {
        type: 'string';
        pattern?: RegExp;
        hint?: string;
        /** The only values, where the API has no enum for them (`pattern` states the same). */
        oneOf?: readonly string[];
      }
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

export type Mode = 'create' | 'update';

/**
 * The part of a request body the handler acts on: the listed, writable properties (the others are
 * ignored, per the spec's conventions), with defaults filled on create. The body was already checked
 * against the schema generated from the same fields (provisioning-schemas.ts).
 */
export function acceptBody(fields: Fields, body: unknown, mode: Mode): Record<string, unknown> {
  return pick(fields, isRecord(body) ? body : {}, mode);
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function pick(fields: Fields, body: Record<string, unknown>, mode: Mode): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(fields)) {
    if (spec.readOnly) continue;
    const value = body[name];
    if (value !== undefined) out[name] = accepted(spec, value);
    else if (mode === 'create' && spec.default !== undefined) out[name] = structuredClone(spec.default);
  }
  return out;
}

/** Nested objects are whole values: their own unlisted properties go and their defaults apply. */
function accepted(spec: FieldSpec, value: unknown): unknown {
  if (spec.type === 'list' && Array.isArray(value)) return value.map((v) => accepted(spec.of, v));
  if (spec.type === 'object' && isRecord(value)) return pick(spec.fields, value, 'create');
  return value;
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
  // Called for every row of every read: most collections have no write-only field, and a plain
  // copy is V8's fast clone, where `Object.entries` made a pair array per property (issue 19).
  if (!hasWriteOnly(fields)) return Object.assign({}, record);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) if (!fields[k]?.writeOnly) out[k] = v;
  return out;
}

const writeOnlyOf = new WeakMap<Fields, boolean>();
function hasWriteOnly(fields: Fields): boolean {
  let has = writeOnlyOf.get(fields);
  if (has === undefined) {
    has = Object.values(fields).some((spec) => spec.writeOnly === true);
    writeOnlyOf.set(fields, has);
  }
  return has;
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
