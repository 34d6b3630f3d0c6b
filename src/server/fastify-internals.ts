import { createRequire } from 'node:module';

/**
 * The two Fastify internals the request path reads directly, each because its public accessor
 * costs every request something the profile showed: `request.routeOptions` builds a new object
 * per call (the request meter wants the route's URL pattern), and `reply.header()` lowercases its
 * name and stores it by a computed key (the front door sets fixed, already lowercase names).
 * Tests over a real server check what both are used for (the metrics' route labels; the headers
 * on every answer), so a Fastify that moved them would fail those tests, not answer wrongly.
 */
const symbols = createRequire(import.meta.url)('fastify/lib/symbols.js') as {
  kRouteContext: symbol;
  kReplyHeaders: symbol;
};

export const { kRouteContext, kReplyHeaders } = symbols;

/** The headers Fastify will write for a reply, by lowercase name. */
export type ReplyHeaders = Record<string, string | number | string[] | undefined>;
