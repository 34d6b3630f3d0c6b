import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors.js';
import { isUpgrade } from '../api/transport/websockets.js';

/** What a browser page on an allowed origin may send and read (both APIs and the token endpoint). */
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
const ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'];
const EXPOSED_HEADERS = ['Location', 'Retry-After', 'X-Request-Id', 'WWW-Authenticate'];

/**
 * Browser widgets on the operator's origins (`--cors-origins`): CORS answers through
 * @fastify/cors, in a root `onRequest` hook, so a preflight is answered before any API scope
 * authenticates or limits it. An origin not in the list gets no CORS headers at all (its
 * preflight goes on to the route like any OPTIONS request). With the list set, a WebSocket
 * upgrade from a page on another origin is refused before authentication; a page served by this
 * server (same origin) and a client that sends no `Origin` (not a browser) are not affected.
 * Nothing is registered when the list is empty, so the request path is unchanged.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const allowed = new Set(origins);
  const { default: cors } = await import('@fastify/cors');
  await app.register(cors, {
    origin: (origin, cb) => cb(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: METHODS,
    allowedHeaders: ALLOWED_HEADERS,
    exposedHeaders: EXPOSED_HEADERS,
    maxAge: 600,
    strictPreflight: false,
  });
  app.addHook('onRequest', (req, _reply, done) => {
    if (!isUpgrade(req)) return done();
    const origin = req.headers.origin;
    if (origin === undefined || allowed.has(origin) || isSameOrigin(req, origin)) return done();
    done(forbidden('ORIGIN_NOT_ALLOWED', `Pages on ${origin} may not open sockets here (--cors-origins).`));
  });
}

function isSameOrigin(req: FastifyRequest, origin: string): boolean {
  return origin === `${req.protocol}://${req.host}`;
}
