import type { FastifyInstance, FastifyReply } from 'fastify';
import type { CcRuntime } from './cc-runtime.js';
import { clientOf, forwardedBy, registerRestLimits } from '../limits/index.js';
import { notePrincipal } from '../auth/request-principal.js';
import { requireJsonWrites } from '../schema/json-only.js';
import { capBodies } from '../schema/bounds.js';
import { principal as callerOf } from './access.js';
import { ccErrorHandler, sendCcError, unauthorized } from './errors.js';
import { oauthRoutes } from './oauth.js';
import { CC_OPENAPI } from './openapi-info.js';
import { principalOfSubject } from './principals.js';
import { agentRoutes } from './routes-agents.js';
import { callRoutes } from './routes-calls.js';
import { tenantRoutes } from './routes-tenants.js';
import { documentEventSocket } from './socket-docs.js';
import { eventSocket } from './socket.js';
import { revokeTokensOnCredentialChange } from './token-revocation.js';
import { TokenService } from './tokens.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The contact-center API under `/6/v2`: REST at `/api/...`, events at `/sock`. */
export async function ccsApi(app: FastifyInstance, opts: { runtime: CcRuntime }) {
  const { runtime } = opts;
  const tokens = new TokenService(runtime.db);
  revokeTokensOnCredentialChange(runtime.directory, tokens, runtime.log);
  const { limits } = runtime;
  runtime.docs.defineOpenApi(CC_OPENAPI);

  app.setErrorHandler(ccErrorHandler);
  capBodies(app, runtime.config.bodyLimitBytes);
  app.setNotFoundHandler((req, reply) => sendCcError(req, reply, 404, 'Not Found'));
  // Writes are JSON; the token grant also takes a form (its route's config.mediaTypes).
  requireJsonWrites(app);
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, text, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(text))));
  });
  const sendBusy = (reply: FastifyReply) => reply.send({ success: false, reason: 'Service Unavailable' });

  // The token grant is work without credentials: it draws from its own per-IP pool, never from
  // the slots of authenticated clients.
  await app.register(async (anonymous) => {
    registerRestLimits(anonymous, {
      limiter: limits.anonymous,
      clientKey: (req) => req.ip,
      sendBusy,
      ...forwardedBy(runtime.placement),
    });
    oauthRoutes(anonymous, runtime, tokens);
  });
  const continuity = await runtime.continuity;
  app.addHook('onClose', () => continuity.close());
  eventSocket(app, runtime, tokens, limits, continuity);
  documentEventSocket(app, runtime);

  await app.register(async (api) => {
    // Callback style: a token already in memory costs no promise. The principal goes into the
    // slot every request is decorated with (src/server/app.ts): a decoration of this scope would
    // give its requests a class of their own, and Fastify's code two shapes of request to handle.
    api.addHook('onRequest', (req, _reply, done) => {
      const admit = (subject: string | null) => {
        const principal = subject ? principalOfSubject(runtime.directory, subject) : null;
        if (!principal) return done(unauthorized());
        notePrincipal(req, principal);
        done();
      };
      const m = BEARER.exec(req.headers.authorization ?? '');
      if (!m) return admit(null);
      const cached = tokens.cachedSubject(m[1]);
      if (cached !== undefined) return admit(cached);
      tokens.subjectOf(m[1]).then(admit, (e: unknown) => done(e as Error));
    });
    // After the token is verified: the slot belongs to its principal + IP.
    registerRestLimits(api, {
      limiter: limits.requests,
      clientKey: (req) => clientOf('cc', callerOf(req).id, req.ip),
      sendBusy,
      ...forwardedBy(runtime.placement),
    });
    tenantRoutes(api, runtime);
    agentRoutes(api, runtime);
    callRoutes(api, runtime);
  });
}
