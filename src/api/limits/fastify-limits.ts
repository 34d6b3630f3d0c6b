import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUpgrade } from '../transport/websockets.js';
import { BusyError, RequestLimiter } from './request-limiter.js';
import { SocketRegistry } from './socket-registry.js';

/** The settings the limits read (from the server's configuration, read again at every check). */
interface LimitsConfig {
  limitInflight: number;
  limitPerClient: number;
  busyDelayMs: number;
  wsMax: number;
  wsPerClient: number;
  wsIdleMs: number;
}

export interface Limits {
  requests: RequestLimiter;
  sockets: SocketRegistry;
}

const shared = new WeakMap<object, Limits>();

/** The one limits layer of a runtime: both APIs draw from the same global caps. */
export function limitsFor(runtime: { config: LimitsConfig }): Limits {
  let l = shared.get(runtime);
  if (!l) {
    const c = runtime.config;
    l = {
      requests: new RequestLimiter(() => ({
        inflight: c.limitInflight,
        perClient: c.limitPerClient,
        busyDelayMs: c.busyDelayMs,
      })),
      sockets: new SocketRegistry(() => ({ max: c.wsMax, perClient: c.wsPerClient, idleMs: c.wsIdleMs })),
    };
    shared.set(runtime, l);
  }
  return l;
}

export interface RestLimitOptions {
  limits: Limits;
  /** The client of a request: user + IP. The user part may be unverified (it only picks a queue). */
  clientKey: (req: FastifyRequest) => string;
  /** Writes the API's own busy answer (status 503 and `Retry-After` are already set). */
  sendBusy: (reply: FastifyReply, retryAfterSeconds: number) => FastifyReply;
}

/**
 * Adds REST admission to the routes of `app` (an encapsulated plugin scope). WebSocket upgrades
 * are left to the socket registry.
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
    const now = opts.limits.requests.tryAcquire(client);
    if (now) {
      admit(reply, now);
      return done();
    }
    opts.limits.requests.acquire(client).then(
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
