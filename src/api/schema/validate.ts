import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { ownValue } from '../../core/own.js';
import { PATTERN_WORDS } from './bounds.js';

// TypeBox knows no string formats and fails every value of an unknown one: the formats the
// schemas use are registered here, with the meaning the documents give them (JSON Schema, RFC 3339).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (v) => UUID.test(v));
if (!FormatRegistry.Has('date-time')) {
  FormatRegistry.Set('date-time', (v) => DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)));
}

/** Which rule of a schema a value broke: what an API names besides the field. */
export type SchemaRule =
  | 'required'
  | 'type'
  | 'minLength'
  | 'maxLength'
  | 'pattern'
  | 'format'
  | 'range'
  | 'items'
  | 'oneOf'
  | 'other';

/** The first thing wrong with a value, in terms an API can turn into its own error shape. */
export interface SchemaIssue {
  /** Dotted path of the offending field (`to`, `subscriptions.0.objectType`); '' for the value itself. */
  field: string;
  /** True when a required field is absent. */
  missing: boolean;
  /** The rule that failed. */
  rule: SchemaRule;
  /** That rule in words, without the field: `must not be empty`, `must be at most 64 characters`. */
  expected: string;
  /** A sentence naming the field and the rule that failed: `to: must not be empty.` */
  message: string;
  /** When a size or character rule (bounds.ts) failed: its words (`must be at most 255 characters`). */
  bound?: string;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** Whether a value matches a schema (compiled once per schema object). */
export function matches(schema: TSchema, value: unknown): boolean {
  return checkerOf(schema).Check(value);
}

/** Undefined when the value matches; otherwise the most useful first issue. */
export function firstIssue(schema: TSchema, value: unknown): SchemaIssue | undefined {
  const check = checkerOf(schema);
  if (check.Check(value)) return undefined;
  const error = check.Errors(value).First();
  if (!error) {
    return {
      field: '',
      missing: false,
      rule: 'other',
      expected: 'is not valid',
      message: 'The value is not valid.',
    };
  }
  const field = error.path.split('/').filter(Boolean).join('.');
  const missing = error.type === ValueErrorType.ObjectRequiredProperty;
  const [rule, expected] = missing
    ? (['required', 'is required'] as const)
    : ruleOf(error.type, error.schema, error.message);
  const message = missing
    ? `${field} is required.`
    : field
      ? `${field}: ${expected}.`
      : `The body ${expected}.`;
  const bound = missing ? undefined : boundWords(error.type, error.schema);
  return bound
    ? { field, missing, rule, expected, message, bound }
    : { field, missing, rule, expected, message };
}

/** The words of a failed size or character rule (bounds.ts), when that is what failed. */
function boundWords(type: ValueErrorType, schema: TSchema): string | undefined {
  if (type === ValueErrorType.StringMaxLength) return `must be at most ${schema.maxLength} characters`;
  if (type === ValueErrorType.ArrayMaxItems) return `must have at most ${schema.maxItems} items`;
  if (type === ValueErrorType.StringPattern) return ownValue(PATTERN_WORDS, schema.pattern as string);
  return undefined;
}

/** The rule an error broke, in plain words for the common cases (TypeBox's own message otherwise). */
function ruleOf(type: ValueErrorType, schema: TSchema, fallback: string): [SchemaRule, string] {
  switch (type) {
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? ['minLength', 'must not be empty']
        : ['minLength', `must be at least ${schema.minLength} characters long`];
    case ValueErrorType.StringMaxLength:
      return ['maxLength', `must be at most ${schema.maxLength} characters`];
    case ValueErrorType.StringPattern:
      return ['pattern', ownValue(PATTERN_WORDS, schema.pattern as string) ?? `must match ${schema.pattern}`];
    case ValueErrorType.StringFormat:
      return ['format', `must be a ${schema.format}`];
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerExclusiveMinimum:
    case ValueErrorType.IntegerExclusiveMaximum:
    case ValueErrorType.NumberExclusiveMinimum:
    case ValueErrorType.NumberExclusiveMaximum:
      return ['range', rangeWords(schema)];
    case ValueErrorType.ArrayMinItems:
      return ['items', `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'}`];
    case ValueErrorType.ArrayMaxItems:
      return ['items', `must have at most ${schema.maxItems} items`];
  }
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf as TSchema[];
    if (members.every((m) => 'const' in m))
      return ['oneOf', `must be one of ${members.map((m) => String(m.const)).join(', ')}`];
    return ['type', `must be ${orList(members.map(memberWords))}`];
  }
  if ('const' in schema) return ['oneOf', `must be ${String(schema.const)}`];
  if (schema.type === 'integer' || schema.type === 'number') {
    const ranged = schema.minimum !== undefined || schema.maximum !== undefined;
    return ['type', ranged ? rangeWords(schema) : `must be ${memberWords(schema)}`];
  }
  const typeWords = TYPE_WORDS[schema.type as string];
  if (typeWords) return ['type', `must be ${typeWords}`];
  return ['other', fallback.toLowerCase()];
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/** One member of a union in words: `a string`, `a boolean`, `null`, `"true"`. */
const memberWords = (s: TSchema): string =>
  'const' in s
    ? JSON.stringify(s.const)
    : s.type === 'boolean'
      ? 'a boolean'
      : (TYPE_WORDS[s.type as string] ?? 'a valid value');

/** `a`, `a or b`, `a, b or c`. */
const orList = (words: string[]) =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;

function rangeWords(schema: TSchema): string {
  const kind = schema.type === 'integer' ? 'an integer' : 'a number';
  const min = schema.minimum ?? schema.exclusiveMinimum;
  const max = schema.maximum ?? schema.exclusiveMaximum;
  if (min !== undefined && max !== undefined) return `must be ${kind} from ${min} to ${max}`;
  if (min !== undefined) return `must be ${kind} of at least ${min}`;
  if (max !== undefined) return `must be ${kind} of at most ${max}`;
  return `must be ${kind}`;
}
