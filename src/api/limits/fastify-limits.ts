import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUpgrade } from '../transport/websockets.js';
import { BusyError, RequestLimiter } from './request-limiter.js';
import type { SharedSocketClaims } from '../../core/shared-security.js';
import { SocketRegistry } from './socket-registry.js';

/** The settings the limits read (from the server's configuration, read again at every check). */
interface LimitsConfig {
  limitInflight: number;
  limitPerClient: number;
  limitAnonymousPerIp: number;
  busyDelayMs: number;
  wsMax: number;
  wsPerClient: number;
  wsIdleMs: number;
  wsPendingMax: number;
  wsPendingPerIp: number;
}

export interface Limits {
  /** REST requests of authenticated clients, keyed by `clientOf` (principal + IP). */
  requests: RequestLimiter;
  /** Unauthenticated REST work (the token grant), keyed by IP: its own pool. */
  anonymous: RequestLimiter;
  /** Authenticated sockets, keyed by `clientOf`. */
  sockets: SocketRegistry;
  /** Sockets that have not authenticated yet, keyed by IP: its own pool. */
  pendingSockets: SocketRegistry;
}

/**
 * The limits key of an authenticated client: its resolved principal and its address, per API
 * (a program using both APIs holds each API's allowance, as the two specifications each grant).
 */
export const clientOf = (api: 'voice' | 'cc', principalId: string, ip: string): string =>
  `${api}\u0000${principalId}\u0000${ip}`;

const shared = new WeakMap<object, Limits>();

/** The one limits layer of a runtime: both APIs draw from the same global caps. */
export function limitsFor(runtime: {
  config: LimitsConfig;
  sharedSocketClaims?: SharedSocketClaims;
}): Limits {
  let l = shared.get(runtime);
  if (!l) {
    const c = runtime.config;
    l = {
      requests: new RequestLimiter(() => ({
        inflight: c.limitInflight,
        perClient: c.limitPerClient,
        busyDelayMs: c.busyDelayMs,
      })),
      anonymous: new RequestLimiter(() => ({
        inflight: c.limitInflight,
        perClient: c.limitAnonymousPerIp,
        busyDelayMs: c.busyDelayMs,
      })),
      sockets: new SocketRegistry(
        () => ({ max: c.wsMax, perClient: c.wsPerClient, idleMs: c.wsIdleMs }),
        runtime.sharedSocketClaims,
      ),
      pendingSockets: new SocketRegistry(() => ({
        max: c.wsPendingMax,
        perClient: c.wsPendingPerIp,
        idleMs: c.wsIdleMs,
      })),
    };
    shared.set(runtime, l);
  }
  return l;
}

export interface RestLimitOptions {
  /** `limits.requests` after the scope's authentication, or `limits.anonymous` for work without it. */
  limiter: RequestLimiter;
  /**
   * The client of a request: `clientOf` its verified principal and IP, or the IP alone for
   * unauthenticated work. Never a string the client typed: spellings must not multiply slots.
   */
  clientKey: (req: FastifyRequest) => string;
  /** Writes the API's own busy answer (status 503 and `Retry-After` are already set). */
  sendBusy: (reply: FastifyReply, retryAfterSeconds: number) => FastifyReply;
}

/**
 * Adds REST admission to the routes of `app` (an encapsulated plugin scope), after the hooks
 * registered before it (register it after authentication: an anonymous client must not hold an
 * authenticated client's slot). WebSocket upgrades are left to the socket registries.
 */
export function registerRestLimits(app: FastifyInstance, opts: RestLimitOptions): void {
  const admit = (reply: FastifyReply, release: () => void) => {
    // `on`, not `once`: release is idempotent and the response is dropped after 'close', so the
    // once-wrapper and its removal are pure cost on the hot path.
    reply.raw.on('close', release);
    if (reply.raw.destroyed || reply.raw.writableFinished) release();
  };
  // Callback style: the common case (a free slot) costs no promise.
  app.addHook('onRequest', (req, reply, done) => {
    if (isUpgrade(req)) return done();
    const client = opts.clientKey(req);
    const now = opts.limiter.tryAcquire(client);
    if (now) {
      admit(reply, now);
      return done();
    }
    opts.limiter.acquire(client).then(
      (release) => {
        admit(reply, release);
        done();
      },
      (e: unknown) => {
        if (!(e instanceof BusyError)) return done(e as Error);
        reply.code(503).header('retry-after', String(e.retryAfterSeconds));
        opts.sendBusy(reply, e.retryAfterSeconds);
      },
    );
  });
}

/** Fastify's body-size refusal, which each API renders in its own error shape. */
export function isBodyTooLarge(err: unknown): boolean {
  return (
    (err as { code?: string })?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
    (err as { statusCode?: number })?.statusCode === 413
  );
}
