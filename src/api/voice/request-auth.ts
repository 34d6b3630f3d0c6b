import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import type { Runtime } from '../../server/runtime.js';
import { authenticatorFor, parseBasic, UnauthorizedError } from '../auth/index.js';

type Credentials = { username: string; secret: string } | null;

/**
 * Per-request state kept on the request object itself: a WeakMap keyed by short-lived requests
 * costs ephemeron work in every GC, which showed in the request-path profile.
 */
interface AuthState {
  [PRINCIPAL]?: Principal;
  [CREDENTIALS]?: Credentials;
}
const PRINCIPAL = Symbol('voice principal');
const CREDENTIALS = Symbol('voice credentials');
const stateOf = (req: FastifyRequest) => req as FastifyRequest & AuthState;

/** HTTP Basic on every request of the scope, the WebSocket upgrade included (spec: Authentication). */
export function registerBasicAuth(app: FastifyInstance, runtime: Runtime): void {
  const auth = authenticatorFor(runtime);
  app.addHook('onRequest', (req, _reply, done) => {
    const creds = credentialsOf(req);
    if (!creds) return done(new UnauthorizedError('Credentials are required (HTTP Basic).'));
    try {
      stateOf(req)[PRINCIPAL] = auth.authenticate(creds.username, creds.secret, req.ip);
    } catch (e) {
      return done(e as Error);
    }
    done();
  });
}

export function principalOf(req: FastifyRequest): Principal {
  const p = stateOf(req)[PRINCIPAL];
  if (!p) throw new UnauthorizedError('Credentials are required (HTTP Basic).');
  return p;
}

/** The limits client of a request: the (unverified) username and the client IP. */
export function clientKey(req: FastifyRequest): string {
  return `${credentialsOf(req)?.username ?? ''}\u0000${req.ip}`;
}

/** Parsed once per request: the limits layer and the auth hook both need them. */
function credentialsOf(req: FastifyRequest): Credentials {
  const state = stateOf(req);
  const known = state[CREDENTIALS];
  if (known !== undefined) return known;
  return (state[CREDENTIALS] = readCredentials(req));
}

/**
 * Browsers cannot set Authorization on a WebSocket, so an upgrade may carry the same Basic
 * credentials as subprotocols `switchboard, basic.<base64url(username:password)>` (docs/browser-tools.md).
 * The server answers with the first offered protocol, so the credentials are not echoed.
 */
function readCredentials(req: FastifyRequest): Credentials {
  const header = parseBasic(req.headers.authorization);
  if (header || req.headers.upgrade?.toLowerCase() !== 'websocket') return header;
  const offered = req.headers['sec-websocket-protocol']?.split(',') ?? [];
  const token = offered.map((p) => p.trim()).find((p) => p.startsWith('basic.'));
  return token ? parseBasic(`Basic ${token.slice('basic.'.length)}`) : null;
}
