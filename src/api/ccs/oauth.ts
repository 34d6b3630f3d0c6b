import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../server/runtime.js';
import { authenticatorFor } from '../auth/index.js';
import { badRequest, unauthorized } from './errors.js';
import { principalOfSubject } from './principals.js';
import type { TokenService } from './tokens.js';

/** `POST /6/v2/api/oauth/token`: the password and refresh_token grants (DESIGN §3.1). */
export function oauthRoutes(app: FastifyInstance, runtime: Runtime, tokens: TokenService) {
  const auth = authenticatorFor(runtime);
  app.post('/api/oauth/token', async (req, reply) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (k: string) => (typeof body[k] === 'string' ? (body[k] as string) : '');
    reply.header('cache-control', 'no-store');
    switch (body.grant_type) {
      case 'password': {
        const username = text('username');
        if (!username) throw badRequest('username and password are required');
        const principal = auth.authenticate(username, text('password'), req.ip);
        return tokens.issue(principal.username);
      }
      case 'refresh_token': {
        const found = await tokens.refresh(text('refresh_token'));
        if (!found || !principalOfSubject(runtime.directory, found.subject)) throw unauthorized();
        return tokens.issue(found.subject);
      }
      default:
        throw badRequest('grant_type must be password or refresh_token');
    }
  });
}
