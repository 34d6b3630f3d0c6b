/** `POST /6/v2/api/oauth/token` (docs/decisions.md §1.1): request grants and the token answer. */
import { type Static, Type } from '@sinclair/typebox';

export const PasswordGrantRequestSchema = Type.Object(
  {
    grant_type: Type.Literal('password'),
    username: Type.String({
      minLength: 1,
      description: 'A telco user, `<ext>@<tenantId>`, or another tenant username form.',
      examples: ['101@1001'],
    }),
    password: Type.String({ description: 'The password or PIN.' }),
  },
  { $id: 'PasswordGrantRequest' },
);
export type PasswordGrantRequest = Static<typeof PasswordGrantRequestSchema>;

export const RefreshGrantRequestSchema = Type.Object(
  {
    grant_type: Type.Literal('refresh_token'),
    refresh_token: Type.String({ minLength: 1, description: 'A refresh token; each works once.' }),
  },
  { $id: 'RefreshGrantRequest' },
);
export type RefreshGrantRequest = Static<typeof RefreshGrantRequestSchema>;

// A union selected by one field, like ExtensionRequest (agent-schemas.ts): the same shape, other requests.
export const TokenRequestSchema = Type.Union([PasswordGrantRequestSchema, RefreshGrantRequestSchema], {
  $id: 'TokenRequest',
  description: 'JSON or `application/x-www-form-urlencoded`; the grant is selected by `grant_type`.',
});
export type TokenRequest = Static<typeof TokenRequestSchema>;

export const TokenGrantSchema = Type.Object(
  {
    access_token: Type.String({
      minLength: 1,
      description: 'Opaque; send as `Authorization: Bearer <token>`.',
    }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ minimum: 1, description: 'Seconds the access token stays valid (3600).' }),
    refresh_token: Type.String({ minLength: 1 }),
  },
  { $id: 'TokenGrant', additionalProperties: false },
);
export type TokenGrant = Static<typeof TokenGrantSchema>;
