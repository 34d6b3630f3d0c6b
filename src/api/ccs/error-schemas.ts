/** The contact-center error bodies (spec Errors table, docs/decisions.md §1.2 and §1.7). */
import { type Static, Type } from '@sinclair/typebox';

export const ErrorBodySchema = Type.Object(
  {
    success: Type.Literal(false),
    reason: Type.String({ description: 'What was wrong, in words.' }),
  },
  { $id: 'ErrorBody', additionalProperties: false, examples: [{ success: false, reason: 'Forbidden' }] },
);
export type ErrorBody = Static<typeof ErrorBodySchema>;

/** The 400 body of call listing, single call and call search: `success` is true (spec Errors). */
export const QuirkErrorBodySchema = Type.Object(
  { success: Type.Literal(true), reason: Type.String() },
  {
    $id: 'QuirkErrorBody',
    additionalProperties: false,
    description:
      'The 400 body of the call listing, single-call and call-search endpoints: `success` is true.',
    examples: [{ success: true, reason: 'Invalid call id' }],
  },
);
export type QuirkErrorBody = Static<typeof QuirkErrorBodySchema>;

/** Call control answers 400 with `success: true` for startSuppression only. */
export const CallControlErrorBodySchema = Type.Object(
  { success: Type.Boolean(), reason: Type.String() },
  {
    $id: 'CallControlErrorBody',
    additionalProperties: false,
    description:
      'The 400 body of call control: `success` is true for a startSuppression request, false for the others.',
  },
);
export type CallControlErrorBody = Static<typeof CallControlErrorBodySchema>;

export const UnauthorizedBodySchema = Type.Object(
  { status: Type.Literal(401), reason: Type.Literal('Unauthorized') },
  { $id: 'UnauthorizedBody', additionalProperties: false },
);
export type UnauthorizedBody = Static<typeof UnauthorizedBodySchema>;

export const ForbiddenBodySchema = Type.Object(
  {
    success: Type.Literal(false),
    reason: Type.Union([Type.Literal('Forbidden'), Type.Literal('Locked Out')], {
      description: '`Locked Out` after repeated failed logins from one address (with `Retry-After`).',
    }),
  },
  { $id: 'ForbiddenBody', additionalProperties: false },
);
export type ForbiddenBody = Static<typeof ForbiddenBodySchema>;

export const NotFoundBodySchema = Type.Object(
  { success: Type.Literal(false), reason: Type.Literal('Not Found') },
  { $id: 'NotFoundBody', additionalProperties: false },
);
export type NotFoundBody = Static<typeof NotFoundBodySchema>;

export const PayloadTooLargeBodySchema = Type.Object(
  { success: Type.Literal(false), reason: Type.Literal('Payload Too Large') },
  { $id: 'PayloadTooLargeBody', additionalProperties: false },
);
export type PayloadTooLargeBody = Static<typeof PayloadTooLargeBodySchema>;

/** A write whose Content-Type is not JSON (docs/decisions.md: JSON-only writes). */
export const UnsupportedMediaTypeBodySchema = Type.Object(
  { success: Type.Literal(false), reason: Type.Literal('Unsupported Media Type') },
  { $id: 'UnsupportedMediaTypeBody', additionalProperties: false },
);

export const UpgradeRequiredBodySchema = Type.Object(
  { success: Type.Literal(false), reason: Type.Literal('Upgrade Required') },
  { $id: 'UpgradeRequiredBody', additionalProperties: false },
);
export type UpgradeRequiredBody = Static<typeof UpgradeRequiredBodySchema>;

/** The 500 body: `success` is true in it (spec Errors). */
export const InternalErrorBodySchema = Type.Object(
  { success: Type.Literal(true), reason: Type.Literal('Internal Server Error') },
  { $id: 'InternalErrorBody', additionalProperties: false },
);
export type InternalErrorBody = Static<typeof InternalErrorBodySchema>;

export const BusyBodySchema = Type.Object(
  { success: Type.Literal(false), reason: Type.Literal('Service Unavailable') },
  { $id: 'BusyBody', additionalProperties: false },
);
export type BusyBody = Static<typeof BusyBodySchema>;
