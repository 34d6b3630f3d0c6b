import { invalid } from '../../../core/errors.js';
import { ownValue } from '../../../core/own.js';
import { type Entity, embedValue, type FieldType, type ItemSchema } from './model.js';

/**
 * The `filter` grammar. Several `filter` parameters AND together; the comma-separated conditions
 * inside one OR together. Conditions: `<op>(<key>,<value>)` with eq ne (integer, boolean, string),
 * gt ge lt le (integer), ct ci sw ew (string); `<op>(<key>)` with est nes emp nem. Keys are item
 * properties or dotted paths through embeds; values are URI-encoded.
 */
export const VALUE_OPS = ['eq', 'ne', 'gt', 'ge', 'lt', 'le', 'ct', 'ci', 'sw', 'ew'] as const;
export const PRESENCE_OPS = ['est', 'nes', 'emp', 'nem'] as const;
type ValueOp = (typeof VALUE_OPS)[number];
type PresenceOp = (typeof PRESENCE_OPS)[number];

const TYPES_OF: Record<ValueOp, readonly FieldType[]> = {
  eq: ['integer', 'boolean', 'string'],
  ne: ['integer', 'boolean', 'string'],
  gt: ['integer'],
  ge: ['integer'],
  lt: ['integer'],
  le: ['integer'],
  ct: ['string'],
  ci: ['string'],
  sw: ['string'],
  ew: ['string'],
};

export type Condition =
  | { op: ValueOp; path: string[]; type: FieldType; value: string | number | boolean }
  | { op: PresenceOp; path: string[] };

/** AND of ORs. */
export type Filter = Condition[][];

const bad = (detail: string, condition: string) =>
  invalid('INVALID_FILTER', `Invalid filter condition "${condition}": ${detail}.`, [
    { type: 'filterCondition', value: condition },
  ]);

/** Parses raw (still URI-encoded) `filter` values against the caller-visible item schema. */
export function parseFilter(rawValues: readonly string[], schema: ItemSchema): Filter {
  return rawValues.map((raw) => splitTopLevel(raw).map((c) => parseCondition(c, schema)));
}

function splitTopLevel(raw: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      out.push(raw.slice(start, i));
      start = i + 1;
    }
  }
  out.push(raw.slice(start));
  return out;
}

function decode(s: string, condition: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    throw bad('bad URI encoding', condition);
  }
}

function parseCondition(rawCondition: string, schema: ItemSchema): Condition {
  const shown = decode(rawCondition, rawCondition);
  const m = /^([a-z]{2,3})\((.*)\)$/s.exec(rawCondition.trim());
  if (!m) throw bad('expected <operator>(<key>[,<value>])', shown);
  const op = m[1];
  const inner = m[2];
  const comma = inner.indexOf(',');
  const keyRaw = comma < 0 ? inner : inner.slice(0, comma);
  const key = decode(keyRaw, shown).trim();
  if (!key) throw bad('the key is missing', shown);
  const path = key.split('.');
  if ((PRESENCE_OPS as readonly string[]).includes(op)) {
    if (comma >= 0) throw bad(`${op} takes no value`, shown);
    resolveKey(path, schema, true, shown);
    return { op: op as PresenceOp, path };
  }
  if (!(VALUE_OPS as readonly string[]).includes(op)) throw bad(`unknown operator "${op}"`, shown);
  if (comma < 0) throw bad(`${op} needs a value`, shown);
  const valueText = decode(inner.slice(comma + 1), shown);
  if (valueText === '') throw bad(`${op} needs a value`, shown);
  const type = resolveKey(path, schema, false, shown);
  if (!type) throw bad(`"${key}" is not a property`, shown);
  if (!TYPES_OF[op as ValueOp].includes(type)) throw bad(`${op} does not apply to ${type} "${key}"`, shown);
  return { op: op as ValueOp, path, type, value: typedValue(valueText, type, shown) };
}

/** The field type at the end of `path`, or undefined when it ends on an embed (presence ops only). */
function resolveKey(
  path: string[],
  schema: ItemSchema,
  embedAllowed: boolean,
  shown: string,
): FieldType | undefined {
  // Keys come from the client: only own properties of the schema count (never `constructor`,
  // `__proto__`, `toString`... inherited from Object.prototype).
  let s = schema;
  for (let i = 0; i < path.length - 1; i++) {
    const next = ownValue(s.embeds, path[i]);
    if (!next) throw bad(`"${path.slice(0, i + 1).join('.')}" is not an embedded resource`, shown);
    s = next;
  }
  const last = path[path.length - 1];
  const field = ownValue(s.fields, last);
  if (field) return field;
  if (embedAllowed && ownValue(s.embeds, last)) return undefined;
  throw bad(`unknown key "${path.join('.')}"`, shown);
}

function typedValue(text: string, type: FieldType, shown: string): string | number | boolean {
  if (type === 'integer') {
    if (!/^-?\d+$/.test(text)) throw bad(`"${text}" is not an integer`, shown);
    return Number(text);
  }
  if (type === 'boolean') {
    if (text !== 'true' && text !== 'false') throw bad(`"${text}" is not a boolean`, shown);
    return text === 'true';
  }
  return text;
}

/** Applies a parsed filter to list items. */
export function applyFilter(items: Entity[], filter: Filter): Entity[] {
  if (filter.length === 0) return items;
  return items.filter((item) => filter.every((any) => any.some((c) => holds(item, c))));
}

function holds(item: Entity, c: Condition): boolean {
  const values = valuesAt([item], c.path);
  switch (c.op) {
    case 'est':
      return values.some((v) => v !== undefined);
    case 'nes':
      return values.every((v) => v === undefined);
    case 'emp':
      return values.some(isEmpty);
    case 'nem':
      return values.some((v) => v !== undefined && !isEmpty(v));
    case 'ne':
      return values.every((v) => !same(v, c.value));
    default:
      return values.some((v) => compare(c.op as ValueOp, v, c.value));
  }
}

/** Every value reached by `path`; embeds fan out over their elements. */
function valuesAt(entities: Entity[], path: string[]): unknown[] {
  const [head, ...rest] = path;
  const out: unknown[] = [];
  for (const e of entities) {
    if (rest.length === 0) {
      if (Object.hasOwn(e.props, head)) out.push(e.props[head]);
      else if (e.resource) out.push(ownValue(e.resource().props, head));
      else out.push(embedValue(e, head));
      continue;
    }
    const embed = embedValue(e, head);
    if (embed === undefined) out.push(undefined);
    else out.push(...valuesAt(Array.isArray(embed) ? embed : [embed], rest));
  }
  return out;
}

const isEmpty = (v: unknown) => v === null || v === '' || (Array.isArray(v) && v.length === 0);

function same(v: unknown, want: string | number | boolean): boolean {
  if (typeof want === 'number')
    return typeof v === 'number' ? v === want : v !== undefined && Number(v) === want;
  return v === want;
}

function compare(op: ValueOp, v: unknown, want: string | number | boolean): boolean {
  if (v === undefined || v === null) return false;
  switch (op) {
    case 'eq':
      return same(v, want);
    case 'gt':
      return Number(v) > (want as number);
    case 'ge':
      return Number(v) >= (want as number);
    case 'lt':
      return Number(v) < (want as number);
    case 'le':
      return Number(v) <= (want as number);
    case 'ct':
      return String(v).includes(want as string);
    case 'ci':
      return String(v)
        .toLowerCase()
        .includes((want as string).toLowerCase());
    case 'sw':
      return String(v).startsWith(want as string);
    case 'ew':
      return String(v).endsWith(want as string);
    default:
      return false;
  }
}
