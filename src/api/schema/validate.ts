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

/** The first thing wrong with a value, in terms an API can turn into its own error shape. */
export interface SchemaIssue {
  /** Dotted path of the offending field (`to`, `subscriptions.0.objectType`); '' for the value itself. */
  field: string;
  /** True when a required field is absent. */
  missing: boolean;
  /** A sentence naming the field and what was expected. */
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
  if (!error) return { field: '', missing: false, message: 'The value is not valid.' };
  const field = error.path.split('/').filter(Boolean).join('.');
  const missing = error.type === ValueErrorType.ObjectRequiredProperty;
  const bound = boundWords(error.type, error.schema);
  const expected = bound ?? describeExpected(error.schema);
  const message = missing
    ? `${field} is required.`
    : field
      ? `${field}: ${expected ?? error.message.toLowerCase()}.`
      : `The body ${expected ?? error.message.toLowerCase()}.`;
  return bound ? { field, missing, message, bound } : { field, missing, message };
}

/** The words of a failed size or character rule (bounds.ts), when that is what failed. */
function boundWords(type: ValueErrorType, schema: TSchema): string | undefined {
  if (type === ValueErrorType.StringMaxLength) return `must be at most ${schema.maxLength} characters`;
  if (type === ValueErrorType.ArrayMaxItems) return `must have at most ${schema.maxItems} items`;
  if (type === ValueErrorType.StringPattern) return ownValue(PATTERN_WORDS, schema.pattern as string);
  return undefined;
}

/** Plain words for the common cases; TypeBox's own message otherwise. */
function describeExpected(schema: TSchema): string | undefined {
  if (Array.isArray(schema.anyOf) && schema.anyOf.every((s: TSchema) => 'const' in s)) {
    return `must be one of ${schema.anyOf.map((s: TSchema) => String(s.const)).join(', ')}`;
  }
  if ('const' in schema) return `must be ${String(schema.const)}`;
  switch (schema.type) {
    case 'string':
      return schema.pattern ? `must match ${schema.pattern}` : 'must be a string';
    case 'integer':
      return schema.minimum !== undefined && schema.maximum !== undefined
        ? `must be an integer from ${schema.minimum} to ${schema.maximum}`
        : 'must be an integer';
    case 'number':
      return 'must be a number';
    case 'boolean':
      return 'must be true or false';
    case 'object':
      return 'must be an object';
    case 'array':
      return 'must be an array';
  }
  return undefined;
}
