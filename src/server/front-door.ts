import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from './config.js';
import { kReplyHeaders, type ReplyHeaders } from './fastify-internals.js';

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
 *   The names are fixed and lowercase, so they are stored into the reply's headers as they are
 *   (`reply.header()` lowercases each name and stores it by a computed key: about a quarter of
 *   this hook's cost; src/server/fastify-internals.ts).
 */
export function guardFrontDoor(app: FastifyInstance, config: Config): void {
  const server = app.server as typeof app.server & { connectionsCheckingInterval: number };
  server.headersTimeout = config.headerTimeoutMs;
  server.connectionsCheckingInterval = Math.max(
    10,
    Math.min(1000, Math.floor(Math.min(config.headerTimeoutMs, config.bodyTimeoutMs) / 4)),
  );
  const headersOf = (reply: FastifyReply) =>
    (reply as unknown as { [kReplyHeaders]: ReplyHeaders })[kReplyHeaders];
  app.addHook(
    'onRequest',
    config.tls
      ? (req, reply, done) => {
          const h = headersOf(reply);
          h['x-request-id'] = req.id;
          h['x-content-type-options'] = 'nosniff';
          h['strict-transport-security'] = HSTS;
          done();
        }
      : (req, reply, done) => {
          const h = headersOf(reply);
          h['x-request-id'] = req.id;
          h['x-content-type-options'] = 'nosniff';
          done();
        },
  );
}
