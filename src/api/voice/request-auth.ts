import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import { sha256 } from '../../core/secrets.js';
import { type Authenticator, UnauthorizedError } from '../auth/index.js';
import { REQUEST_PRINCIPAL } from '../auth/request-principal.js';
import { clientOf } from '../limits/index.js';

/**
 * A request's Basic credentials: the header (or the WebSocket subprotocol token made into one)
 * and its digest, which keys the authenticator's cache.
 */
interface Basic {
  header: string;
  digest: string;
}

/**
 * Per-request state kept on the request object itself: a WeakMap keyed by short-lived requests
 * costs ephemeron work in every GC, which showed in the request-path profile.
 */
interface AuthState {
  [REQUEST_PRINCIPAL]?: Principal;
}
const stateOf = (req: FastifyRequest) => req as FastifyRequest & AuthState;

const REQUIRED = 'Credentials are required (HTTP Basic).';

/**
 * HTTP Basic on every request of the scope, the WebSocket upgrade included (spec: Authentication).
 * A header verified before costs a digest and a lookup; any other is verified off the event loop.
 */
export function registerBasicAuth(app: FastifyInstance, auth: Authenticator): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const basic = readBasic(req);
    if (!basic) return done(new UnauthorizedError(REQUIRED));
    const admit = (principal: Principal | null) => {
      if (!principal) return done(new UnauthorizedError(REQUIRED));
      stateOf(req)[REQUEST_PRINCIPAL] = principal;
      done();
    };
    let cached: Principal | undefined;
    try {
      cached = auth.cachedBasic(basic.digest, req.ip);
    } catch (e) {
      return done(e as Error);
    }
    if (cached) return admit(cached);
    auth.verifyBasic(basic.header, basic.digest, req.ip).then(admit, (e: unknown) => done(e as Error));
  });
}

export function principalOf(req: FastifyRequest): Principal {
  const p = stateOf(req)[REQUEST_PRINCIPAL];
  if (!p) throw new UnauthorizedError(REQUIRED);
  return p;
}

/** The limits client of an authenticated request: its resolved principal and the client IP. */
export function clientKey(req: FastifyRequest): string {
  return clientOf('voice', principalOf(req).id, req.ip);
}

/**
 * Browsers cannot set Authorization on a WebSocket, so an upgrade may carry the same Basic
 * credentials as subprotocols `switchboard, basic.<base64url(username:password)>` (docs/browser-tools.md).
 * The server only ever selects `switchboard` (src/server/websockets.ts), so the credentials are
 * never echoed.
 */
function readBasic(req: FastifyRequest): Basic | null {
  const authorization = req.headers.authorization;
  if (authorization) return { header: authorization, digest: sha256(authorization) };
  if (req.headers.upgrade?.toLowerCase() !== 'websocket') return null;
  const offered = req.headers['sec-websocket-protocol']?.split(',') ?? [];
  const token = offered.map((p) => p.trim()).find((p) => p.startsWith('basic.'));
  if (!token) return null;
  const header = `Basic ${token.slice('basic.'.length)}`;
  return { header, digest: sha256(header) };
}
