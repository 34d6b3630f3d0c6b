/** Contact-center wire primitives shared by the REST and event schemas. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

export const Uuid = Type.String({ format: 'uuid' });
/** A uuid, or '' where the thing it names is gone. */
export const UuidOrEmpty = Type.Union([Type.String({ format: 'uuid' }), Type.Literal('')]);

/** `hours:minutes:seconds`, at least two digits each; hours may exceed two digits. */
export const Hms = Type.String({ pattern: '^\\d{2,}:\\d{2}:\\d{2}$', examples: ['00:01:05'] });
export const HmsOrEmpty = Type.String({
  pattern: '^(\\d{2,}:\\d{2}:\\d{2})?$',
  description: '`hours:minutes:seconds`, or empty.',
});

/** ISO 8601 local date-time without offset, in the tenant's zone. */
export const IsoLocal = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}$',
  examples: ['2026-01-05T04:00:10'],
});
/** ISO 8601 date-time with the zone's UTC offset. */
export const IsoZoned = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[+-]\\d{2}:\\d{2}$',
  examples: ['2026-01-05T04:00:10-05:00'],
});
/** The tenant timestamp text. */
export const TenantTimestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} (AM|PM)$',
  examples: ['2026-01-05 04:00:10 AM'],
});

/** A whole number written as text (`"12"`). */
export const NumericText = Type.String({ pattern: '^\\d+$', examples: ['50'] });

/** A smdrCallId: decimal digits. */
export const CallId = Type.String({ pattern: '^\\d{1,20}$', examples: ['1000000000001'] });

export const NamedRefSchema = Type.Object(
  { uuid: Uuid, name: Type.String() },
  { $id: 'NamedRef', additionalProperties: false, description: 'A uuid and its display name.' },
);
export type NamedRef = Static<typeof NamedRefSchema>;

export const NumberAndNameSchema = Type.Object(
  { number: Type.String(), name: Type.String() },
  { $id: 'NumberAndName', additionalProperties: false },
);
export type NumberAndName = Static<typeof NumberAndNameSchema>;

/** The list envelope: `success`, `total` (numeric text) and `items`. */
export const ListOf = <T extends TSchema>(item: T, id: string, description: string) =>
  Type.Object(
    { success: Type.Literal(true), total: NumericText, items: Type.Array(item) },
    { $id: id, additionalProperties: false, description },
  );

/** `{success: true}`: the answer of a request that changes something. */
export const SuccessAnswerSchema = Type.Object(
  { success: Type.Literal(true) },
  { $id: 'SuccessAnswer', additionalProperties: false },
);
export type SuccessAnswer = Static<typeof SuccessAnswerSchema>;
