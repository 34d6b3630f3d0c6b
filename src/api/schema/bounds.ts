/**
 * Everything a client sends has a size (issue 14 finding 7). The request schemas of every route
 * (path parameters, query, body) are bounded once, when the route is registered, so that the
 * schema that validates a request and the one the published documents show stay the same object:
 *
 * - a string without `maxLength` gets LIMITS.stringLength;
 * - a string with no pattern, format or constant is a name: control characters (U+0000-U+001F,
 *   U+007F) and unpaired surrogates are refused (NAME_PATTERN); `\S` (not blank) becomes the same
 *   pattern with a non-blank look-ahead. Free text (a message) declares TEXT_PATTERN itself, which
 *   also admits tab and line breaks;
 * - an array without `maxItems` gets LIMITS.arrayItems.
 *
 * An explicit bound on a schema wins. The maxima are listed in docs/conformance.md (Limits).
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { conflict } from '../../core/errors.js';

export const LIMITS = {
  /** A name, an id, a number, any short string. */
  stringLength: 255,
  /** Free text (a message shown on phones, a text message). */
  textLength: 2000,
  /** Elements of any array in a request; also the accounts of one subscription set. */
  arrayItems: 1000,
  /** Subscription sets on one voice WebSocket. */
  subscriptionSetsPerSocket: 100,
  /** The body of any request, unless a route says less (the operator's --body-limit-bytes caps it). */
  bodyBytes: 65_536,
} as const;

/** Refuses one more record, set or account than a documented maximum (voice: 409 LIMIT_REACHED). */
export function atMost(count: number, max: number, what: string): void {
  if (count >= max) {
    throw conflict('LIMIT_REACHED', `At most ${max} ${what}.`, [{ type: 'value', value: String(max) }]);
  }
}

/**
 * Caps every route's body at LIMITS.bodyBytes (or the operator's smaller limit); a route that
 * needs more or less sets its own `bodyLimit`. Call before the plugin registers its routes.
 */
export function capBodies(app: FastifyInstance, operatorLimit: number): void {
  const cap = Math.min(LIMITS.bodyBytes, operatorLimit);
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= cap;
  });
}

const GOOD_PAIR = '[\\ud800-\\udbff][\\udc00-\\udfff]';
/** A name: no control character, no unpaired surrogate. */
export const NAME_PATTERN = `^(?:[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]|${GOOD_PAIR})*$`;
/** A name that is not blank. */
export const NON_BLANK_NAME_PATTERN = `^(?=[\\s\\S]*\\S)(?:[^\\u0000-\\u001f\\u007f\\ud800-\\udfff]|${GOOD_PAIR})*$`;
/** Free text: a name's characters plus tab, line feed and carriage return. */
export const TEXT_PATTERN = `^(?:[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f\\ud800-\\udfff]|${GOOD_PAIR})*$`;
/** Free text that is not blank. */
export const NON_BLANK_TEXT_PATTERN = `^(?=[\\s\\S]*\\S)${TEXT_PATTERN.slice(1)}`;

/** The words a validation message uses for each character rule. */
export const PATTERN_WORDS: Readonly<Record<string, string>> = {
  [NAME_PATTERN]: 'must not contain control characters or unpaired surrogates',
  [NON_BLANK_NAME_PATTERN]: 'must not be blank nor contain control characters or unpaired surrogates',
  [TEXT_PATTERN]:
    'must not contain control characters (other than tab and line breaks) or unpaired surrogates',
  [NON_BLANK_TEXT_PATTERN]:
    'must not be blank nor contain control characters (other than tab and line breaks) or unpaired surrogates',
};

const done = new WeakSet<object>();

/** Bounds a request schema in place (idempotent) and returns it. */
export function bounded<T extends TSchema | undefined>(schema: T): T {
  if (schema) walk(schema);
  return schema;
}

function walk(s: TSchema): void {
  if (done.has(s)) return;
  done.add(s);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (Array.isArray(s[key])) for (const m of s[key] as TSchema[]) walk(m);
  }
  if (s.not) walk(s.not as TSchema);
  switch (s.type) {
    case 'string':
      s.maxLength ??= LIMITS.stringLength;
      if (s.pattern === '\\S') s.pattern = NON_BLANK_NAME_PATTERN;
      else if (s.pattern === undefined && s.format === undefined && !('const' in s) && !s.enum) {
        s.pattern = NAME_PATTERN;
      }
      return;
    case 'array':
      s.maxItems ??= LIMITS.arrayItems;
      if (s.items && typeof s.items === 'object' && !Array.isArray(s.items)) walk(s.items as TSchema);
      return;
    case 'object':
      for (const p of Object.values((s.properties ?? {}) as Record<string, TSchema>)) walk(p);
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        walk(s.additionalProperties as TSchema);
      }
      return;
  }
}
