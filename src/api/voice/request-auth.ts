import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import { sha256 } from '../../core/secrets.js';
import { type Authenticator, parseBasic, UnauthorizedError } from '../auth/index.js';
import { REQUEST_PRINCIPAL } from '../auth/request-principal.js';

/**
 * A request's Basic credentials: the header (or the WebSocket subprotocol token made into one),
 * its digest, which keys the authenticator's cache, and the (not yet verified) username.
 */
interface Basic {
  header: string;
  digest: string;
  username: string;
}

/**
 * Per-request state kept on the request object itself: a WeakMap keyed by short-lived requests
 * costs ephemeron work in every GC, which showed in the request-path profile.
 */
interface AuthState {
  [REQUEST_PRINCIPAL]?: Principal;
  [BASIC]?: Basic | null;
}
const BASIC = Symbol('voice basic credentials');
const stateOf = (req: FastifyRequest) => req as FastifyRequest & AuthState;

/**
 * Usernames of Basic headers by digest, so a header seen before costs one digest and no base64
 * decoding (the limits layer needs the username before authentication). Usernames are not secret.
 */
const usernames = new Map<string, string>();
const USERNAMES_MAX = 50_000;

/** HTTP Basic on every request of the scope, the WebSocket upgrade included (spec: Authentication). */
export function registerBasicAuth(app: FastifyInstance, auth: Authenticator): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const basic = basicOf(req);
    let principal: Principal | null;
    try {
      principal = basic && auth.authenticateBasic(basic.header, basic.digest, req.ip);
    } catch (e) {
      return done(e as Error);
    }
    if (!principal) return done(new UnauthorizedError('Credentials are required (HTTP Basic).'));
    stateOf(req)[REQUEST_PRINCIPAL] = principal;
    done();
  });
}

export function principalOf(req: FastifyRequest): Principal {
  const p = stateOf(req)[REQUEST_PRINCIPAL];
  if (!p) throw new UnauthorizedError('Credentials are required (HTTP Basic).');
  return p;
}

/** The limits client of a request: the (unverified) username and the client IP. */
export function clientKey(req: FastifyRequest): string {
  return `${basicOf(req)?.username ?? ''}\u0000${req.ip}`;
}

/** Read once per request: the limits layer and the auth hook both need them. */
function basicOf(req: FastifyRequest): Basic | null {
  const state = stateOf(req);
  const known = state[BASIC];
  if (known !== undefined) return known;
  return (state[BASIC] = readBasic(req));
}

/**
 * Browsers cannot set Authorization on a WebSocket, so an upgrade may carry the same Basic
 * credentials as subprotocols `switchboard, basic.<base64url(username:password)>` (docs/browser-tools.md).
 * The server answers with the first offered protocol, so the credentials are not echoed.
 */
function readBasic(req: FastifyRequest): Basic | null {
  const authorization = req.headers.authorization;
  const header = authorization ? basicFrom(authorization) : null;
  if (header || req.headers.upgrade?.toLowerCase() !== 'websocket') return header;
  const offered = req.headers['sec-websocket-protocol']?.split(',') ?? [];
  const token = offered.map((p) => p.trim()).find((p) => p.startsWith('basic.'));
  return token ? basicFrom(`Basic ${token.slice('basic.'.length)}`) : null;
}

function basicFrom(header: string): Basic | null {
  const digest = sha256(header);
  let username = usernames.get(digest);
  if (username === undefined) {
    const creds = parseBasic(header);
    if (!creds) return null;
    username = creds.username;
    if (usernames.size >= USERNAMES_MAX) usernames.clear();
    usernames.set(digest, username);
  }
  return { header, digest, username };
}
