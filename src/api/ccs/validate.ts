import type { TSchema } from '@sinclair/typebox';
import { ownValue } from '../../core/own.js';
import { PATTERN_WORDS } from '../schema/bounds.js';
import { firstIssue } from '../schema/validate.js';
import { MAX_COUNT } from './request-values.js';

/**
 * The reason text of the contact-center 400 for a value that does not match its schema, or
 * undefined when it matches. A union of objects told apart by a constant field (`request`,
 * `grant_type`) is checked against the member that field selects, so the reason names the
 * member's fields.
 */
export function invalidReason(schema: TSchema, value: unknown): string | undefined {
  const chosen = discriminated(schema, value);
  if (typeof chosen === 'string') return chosen;
  const issue = firstIssue(chosen, value);
  if (!issue) return undefined;
  if (issue.missing) return `${issue.field} is required`;
  if (issue.bound) return issue.field ? `${issue.field} ${issue.bound}` : issue.message.replace(/\.$/, '');
  if (!issue.field) return issue.message.replace(/\.$/, '');
  // Length and range rules are the schema's own words; the other rules read best in this API's.
  if (issue.rule === 'minLength' || issue.rule === 'maxLength') return `${issue.field} ${issue.expected}`;
  const at = schemaAt(chosen, issue.field);
  const words = at && expected(at);
  return words ? `${issue.field} must be ${words}` : `${issue.field} ${issue.expected}`;
}

/**
 * The object (or union member) selected by its constant field, a reason when the field does not
 * match, or the schema itself. The constant field is checked first: it says what the request is.
 */
function discriminated(schema: TSchema, value: unknown): TSchema | string {
  const members =
    (schema.anyOf as TSchema[] | undefined) ?? (schema.type === 'object' ? [schema] : undefined);
  if (!members?.every((m) => m.type === 'object')) return schema;
  const key = Object.keys(members[0]!.properties ?? {}).find((k) =>
    members.every((m) => m.properties?.[k] && 'const' in m.properties[k]),
  );
  if (!key || !value || typeof value !== 'object' || Array.isArray(value)) return schema;
  const tag = (value as Record<string, unknown>)[key];
  const member = members.find((m) => m.properties[key].const === tag);
  return member ?? `${key} must be ${orList(members.map((m) => String(m.properties[key].const)))}`;
}

function schemaAt(schema: TSchema, field: string): TSchema | undefined {
  let s: TSchema | undefined = schema;
  for (const part of field ? field.split('.') : []) {
    s = s?.type === 'array' ? s.items : ownValue(s?.properties, part);
  }
  return s;
}

/** Plain words for the request value shapes of this API (request-values.ts). */
function expected(s: TSchema): string | undefined {
  if ('const' in s) return String(s.const);
  const members = s.anyOf as TSchema[] | undefined;
  if (!members) {
    if (s.type !== 'string') return undefined;
    if (s.format === 'uuid') return 'a uuid';
    if (!s.pattern || ownValue(PATTERN_WORDS, s.pattern as string)) return 'text';
    return Array.isArray(s.examples) ? `like ${String(s.examples[0])}` : undefined;
  }
  if (members.every((m) => 'const' in m)) return orList(members.map((m) => String(m.const)));
  const integer = members.find((m) => m.type === 'integer');
  if (integer) {
    return typeof integer.maximum === 'number' && integer.maximum < MAX_COUNT
      ? `a number from ${integer.minimum ?? 0} to ${integer.maximum}`
      : 'a number';
  }
  return undefined;
}

/** `a`, `a or b`, `a, b or c` (duplicates once). */
function orList(values: string[]): string {
  const unique = [...new Set(values)];
  return unique.length < 2 ? (unique[0] ?? '') : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}
