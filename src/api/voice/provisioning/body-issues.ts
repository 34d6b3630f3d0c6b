import { invalid } from '../../../core/errors.js';
import { ownValue } from '../../../core/own.js';
import type { SchemaIssue } from '../../schema/validate.js';
import type { FieldSpec, Fields } from './fields.js';
import { enumValues } from './provisioning-schemas.js';

/**
 * Provisioning's answer to a body that does not match its schema: 400 INVALID_FIELD naming the
 * field as provisioning always has (`rules[0].routeId`), with what the field expects, in the
 * field's own words (its hint, its range, its enum).
 */
export function refuseBody(fields: Fields): (issue: SchemaIssue) => Error {
  return (issue) => {
    if (issue.field === '')
      return invalid('INVALID_BODY', 'The body must be a JSON object.', [{ type: 'field', value: '' }]);
    const segments = issue.field.split('.');
    const field = segments.map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
    const spec = specAt(fields, segments);
    // A length rule is the schema's own; the other rules read best in the field's words.
    const lengthRule = issue.rule === 'minLength' || issue.rule === 'maxLength';
    const detail = issue.missing
      ? 'is required'
      : (issue.bound ?? (spec && !lengthRule ? expected(spec) : issue.expected));
    return invalid('INVALID_FIELD', `Field "${field}": ${detail}.`, [{ type: 'field', value: field }]);
  };
}

/** The descriptor a schema path (`rules.0.routeId`) leads to. */
function specAt(fields: Fields, segments: string[]): FieldSpec | undefined {
  let spec: FieldSpec | undefined;
  let scope: Fields | undefined = fields;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) spec = spec?.type === 'list' ? spec.of : undefined;
    else spec = ownValue(scope, segment);
    scope = spec?.type === 'object' ? spec.fields : undefined;
    if (!spec) return undefined;
  }
  return spec;
}

function expected(spec: FieldSpec): string {
  switch (spec.type) {
    case 'string':
      if (spec.hint) return `must be ${spec.hint}`;
      return spec.required ? 'must be a string, not empty' : 'must be a string';
    case 'integer':
      if (spec.min !== undefined && spec.max !== undefined)
        return `must be an integer from ${spec.min} to ${spec.max}`;
      if (spec.min !== undefined) return `must be an integer of at least ${spec.min}`;
      if (spec.max !== undefined) return `must be an integer of at most ${spec.max}`;
      return 'must be an integer';
    case 'boolean':
      return 'must be true or false';
    case 'enum':
      return `must be a value of enum ${spec.enumName}: ${enumValues(spec.enumName).join(', ')}`;
    case 'list':
      return 'must be an array';
    case 'object':
      return 'must be an object';
  }
}
