import { parseParkLocation } from '../../../core/accounts.js';
import { invalid } from '../../../core/errors.js';

/**
 * What the body schemas (call-schemas.ts) cannot say: fields required only for some requests.
 * Types, enums and formats are already checked when the handler runs.
 */
export function requiredFor<T>(value: T | undefined, name: string, why: string): T {
  if (value === undefined)
    throw invalid('MISSING_FIELD', `${name} is required ${why}.`, [{ type: 'field', value: name }]);
  return value;
}

/** `featureData` as a park location number (its format is checked by the schema). */
export function parkLocationOf(raw: string | undefined): number | undefined {
  return raw === undefined ? undefined : (parseParkLocation(raw) ?? undefined);
}

/** `playPrompt` is the string `true` or `false` (a JSON boolean is accepted too). */
export const playPromptOf = (v: 'true' | 'false' | boolean | undefined): boolean | undefined =>
  v === undefined ? undefined : v === true || v === 'true';
