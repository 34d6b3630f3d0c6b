import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUpgrade } from '../transport/websockets.js';
import { BusyError, RequestLimiter } from './request-limiter.js';
import type { SharedInflight, SharedSocketClaims } from '../../core/shared-security.js';
import { ClusterSlot } from './cluster-slot.js';
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
 * Each key is made once and then found by its parts (strings whose hashes V8 keeps): a key built
 * per request had to be joined, flattened and hashed again before the limiter's lookup.
 */
export function clientOf(api: 'voice' | 'cc', principalId: string, ip: string): string {
  const byPrincipal = api === 'voice' ? keys.voice : keys.cc;
  let key = byPrincipal.get(principalId)?.get(ip);
  if (key !== undefined) return key;
  if (++keys.made > KEYS_MAX) {
    keys.voice.clear();
    keys.cc.clear();
    keys.made = 1;
  }
  let byIp = byPrincipal.get(principalId);
  if (!byIp) byPrincipal.set(principalId, (byIp = new Map()));
  byIp.set(ip, (key = `${api}\u0000${principalId}\u0000${ip}`));
  return key;
}

/** Keys made so far, by principal then address; all are forgotten past `KEYS_MAX`. */
const KEYS_MAX = 10_000;
const keys = {
  voice: new Map<string, Map<string, string>>(),
  cc: new Map<string, Map<string, string>>(),
  made: 0,
};

const shared = new WeakMap<object, Limits>();

/** The one limits layer of a runtime: both APIs draw from the same global caps. */
export function limitsFor(runtime: {
  config: LimitsConfig;
  sharedSocketClaims?: SharedSocketClaims;
  sharedInflight?: { requests: SharedInflight; anonymous: SharedInflight; pendingSockets: SharedInflight };
}): Limits {
  let l = shared.get(runtime);
  if (!l) {
    const c = runtime.config;
    l = {
      requests: new RequestLimiter(
        () => ({
          inflight: c.limitInflight,
          perClient: c.limitPerClient,
          busyDelayMs: c.busyDelayMs,
        }),
        runtime.sharedInflight?.requests,
      ),
      anonymous: new RequestLimiter(
        () => ({
          inflight: c.limitInflight,
          perClient: c.limitAnonymousPerIp,
          busyDelayMs: c.busyDelayMs,
        }),
        runtime.sharedInflight?.anonymous,
      ),
      sockets: new SocketRegistry(
        () => ({ max: c.wsMax, perClient: c.wsPerClient, idleMs: c.wsIdleMs }),
        runtime.sharedSocketClaims,
      ),
      pendingSockets: new SocketRegistry(
        () => ({ max: c.wsPendingMax, perClient: c.wsPendingPerIp, idleMs: c.wsIdleMs }),
        undefined,
        runtime.sharedInflight?.pendingSockets,
      ),
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
  /**
   * In a cluster: whether another node forwarded the request here. It counted the request for
   * its client already, so here it takes a slot of the node's total only (counted once).
   */
  forwarded?: (req: FastifyRequest) => boolean;
}

/**
 * Adds REST admission to the routes of `app` (an encapsulated plugin scope), after the hooks
 * registered before it (register it after authentication: an anonymous client must not hold an
 * authenticated client's slot). WebSocket upgrades are left to the socket registries.
 */
export function registerRestLimits(app: FastifyInstance, opts: RestLimitOptions): void {
  if (opts.limiter.clustered) return registerClusterLimits(app, opts);
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
        refuse(reply, opts)(e);
      },
    );
  });
}

const refuse = (reply: FastifyReply, opts: RestLimitOptions) => (e: BusyError) => {
  reply.code(503).header('retry-after', String(e.retryAfterSeconds));
  opts.sendBusy(reply, e.retryAfterSeconds);
};

/** The same admission on a cluster node, where a slot may be taken back before its request starts. */
function registerClusterLimits(app: FastifyInstance, opts: RestLimitOptions): void {
  const slots = new WeakMap<FastifyRequest, ClusterSlot>();
  app.addHook('onRequest', (req, reply, done) => {
    if (isUpgrade(req)) return done();
    const client = opts.forwarded?.(req) ? null : opts.clientKey(req);
    const slot = new ClusterSlot(opts.limiter, client, reply, refuse(reply, opts));
    slots.set(req, slot);
    slot.admit(done);
  });
  app.addHook('preHandler', (req, _reply, done) => {
    const slot = slots.get(req);
    if (!slot) return done();
    slot.start(done);
  });
}

/** The `forwarded` option from a cluster node's placement; none on a standalone server. */
export function forwardedBy(
  placement: { isForwarded(req: FastifyRequest): boolean } | undefined,
): Pick<RestLimitOptions, 'forwarded'> {
  return placement ? { forwarded: (req) => placement.isForwarded(req) } : {};
}

/** Fastify's body-size refusal, which each API renders in its own error shape. */
export function isBodyTooLarge(err: unknown): boolean {
  return (
    (err as { code?: string })?.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ||
    (err as { statusCode?: number })?.statusCode === 413
  );
}
