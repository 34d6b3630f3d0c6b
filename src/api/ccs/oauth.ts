import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { CcRuntime } from './cc-runtime.js';
import { ccRoute } from './cc-route.js';
import { unauthorized } from './errors.js';
import { TokenGrantSchema, TokenRequestSchema } from './oauth-schemas.js';
import { principalOfSubject } from './principals.js';
import type { TokenService } from './tokens.js';

/** `POST /6/v2/api/oauth/token`: the password and refresh_token grants (docs/decisions.md §1.1). */
export function oauthRoutes(app: FastifyInstance, runtime: CcRuntime, tokens: TokenService) {
  const { auth } = runtime;
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/oauth/token',
    doc: {
      operationId: 'issueToken',
      summary: 'Get an access token (password or refresh_token grant)',
      description:
        'OAuth 2.0 token endpoint. The password grant takes the same usernames and passwords or PINs ' +
        'as the voice API; a refresh token works once. Three failed logins of one user (under any ' +
        'spelling of the username) from one address lock it out for a while (403 `Locked Out` ' +
        'with `Retry-After`).',
      tags: ['authentication'],
      security: [],
      body: TokenRequestSchema,
      bodyContentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      ok: {
        description: 'A new access and refresh token.',
        schema: TokenGrantSchema,
        headers: { 'Cache-Control': { description: '`no-store`', schema: Type.Literal('no-store') } },
      },
      unauthorized: 'Wrong username or password, or a refresh token that is not valid.',
      forbidden: 'Locked out after repeated failed logins (`Locked Out`, with `Retry-After`).',
    },
    handler: async (req, { body }, reply) => {
      reply.header('cache-control', 'no-store');
      // No grant: the user's credentials changed while it was being stored (its tokens revoked).
      if (body.grant_type === 'password') {
        const principal = await auth.authenticate(body.username, body.password, req.ip);
        return (await tokens.issue(principal.username)) ?? unauthorizedNow();
      }
      const found = await tokens.refresh(body.refresh_token);
      if (!found || !principalOfSubject(runtime.directory, found.subject)) throw unauthorized();
      return (await tokens.issue(found.subject)) ?? unauthorizedNow();
    },
  });
}

function unauthorizedNow(): never {
  throw unauthorized();
}
