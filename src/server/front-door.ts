import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';

/** HSTS for a year on HTTPS; no `includeSubDomains`: other services may share the domain. */
const HSTS = 'max-age=31536000';

/**
 * What every connection and every answer gets, whichever API it reaches:
 * - a slow client cannot hold a connection (or the slot behind it) open: its headers must arrive
 *   within `headerTimeoutMs` and the whole request, body included, within `bodyTimeoutMs`, or Node
 *   answers 408 and closes the connection. Node checks at `connectionsCheckingInterval` (30 s by
 *   default, far coarser than the time-outs), so the check runs at a quarter of the shorter one,
 *   at most every second. Fastify sets `requestTimeout` itself (from its options);
 * - `X-Request-Id` (the request's id: the client's own when plausible, request-ids.ts),
 *   `X-Content-Type-Options: nosniff` on every answer, and `Strict-Transport-Security` on HTTPS:
 *   one root hook, so every route (API routes already run hooks there) pays a few header
 *   assignments, and an answer an API hook or handler sends later, an error included, keeps them.
 */
export function guardFrontDoor(app: FastifyInstance, config: Config): void {
  const server = app.server as typeof app.server & { connectionsCheckingInterval: number };
  server.headersTimeout = config.headerTimeoutMs;
  server.connectionsCheckingInterval = Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(config.headerTimeoutMs, config.bodyTimeoutMs) / 4)),
  );
  const hsts = config.tls ? HSTS : undefined;
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    reply.header('x-content-type-options', 'nosniff');
    if (hsts) reply.header('strict-transport-security', hsts);
    done();
  });
}
