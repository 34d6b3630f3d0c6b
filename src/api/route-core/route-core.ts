import type { TObject, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import { bounded } from '../schema/bounds.js';
import type { HttpMethod, OperationDoc } from '../schema/openapi.js';
import type { ApiDocs } from '../schema/registry.js';
import { type Placement, type PlaceOf, type PlaceOfBody, placementHooks } from './placement.js';
import { windowOf } from './kept-window.js';
import type { KeptAnswer, ReadCache } from './read-cache.js';

/**
 * The one way a route of any API runs: the voice registry, `ccRoute` and `simRoute` each turn
 * their declaration into a `CoreRoute` and hand it here with their API's `RouteAdapter`. The core
 * owns the order of the steps, so every API refuses the same way in the same order:
 *
 *   1 admit: the caller the scope's authentication hook found, checked against the route's permission
 *   2 path parameters against their schema
 *   3 scope: what the path names that the caller must reach (the voice tenant)
 *   4 body, then 5 query, against their schemas
 *   6 the handler, on the API's own input
 *   7 render: the API's body for the outcome (or Fastify sends what the handler returned)
 *
 * A read that declares `cached` (its answer depends only on the caller, the URL and what its
 * `generation` counts) is answered after step 1 from the text kept for that principal and URL
 * while the generation has not moved (read-cache.ts), and, for an answer whose values move with
 * the clock, while the clock is within the times the handler marked it true for (kept-window.ts);
 * steps 2 to 7 made that text, and would make it again.
 *
 * What differs per API (its 400 body, how it reads a body or a query, how it renders) is the
 * adapter's; failures are thrown, and the API's error handler gives them the API's error body.
 * Commands of the switch run on the tenant's queue inside the switch (src/switch/tenant-queue.ts).
 * The handler here is not async and allocates nothing of its own: a synchronous answer skips the
 * promise, the awaited thenable reply and their microtask turns (seen in the request-path profile).
 *
 * In a cluster, step 0 comes first: a request that concerns a tenant another node owns is sent
 * there whole and answered with that node's answer (placement.ts). A standalone server's routes
 * have no such step at all.
 */

/** Where a value that does not match its schema came from. */
export type InputPart = 'params' | 'body' | 'query';

/** One route, as the core runs it. `D` is the API's own declaration, handed back to its adapter. */
export interface CoreRoute<D, I, O> {
  method: HttpMethod;
  /** Relative to the plugin's prefix. */
  url: string;
  def: D;
  params?: TObject | undefined;
  body?: TSchema | undefined;
  /** Whether a body must come; without one, the adapter says what the body schema checks. */
  bodyRequired: boolean;
  query?: TObject | undefined;
  /** The operation in the API's OpenAPI document; the core adds method, path and the schemas above. */
  doc?: RouteDoc | undefined;
  /** Fastify route config (e.g. `mediaTypes`, schema/json-only.ts). */
  config?: Record<string, unknown> | undefined;
  /** Step 0: the tenant the request concerns, instead of the adapter's rule. */
  place?: PlaceOf | undefined;
  /** Step 0 for a route that names its tenant only in the body. */
  placeByBody?: PlaceOfBody | undefined;
  /** A read kept as text while `generation()` stays the same (read-cache.ts). */
  cached?: CachedRead | undefined;
  handle(input: I, req: FastifyRequest, reply: FastifyReply): O | Promise<O>;
}

/** Where a read's answers are kept, and the count of the changes that would change them. */
export interface CachedRead {
  cache: ReadCache;
  /**
   * The count for this caller's read of `url` (path and query as received), read before it runs;
   * undefined when its answer must be made afresh and not kept (it carries a value that moves by
   * itself, such as a live call's duration).
   */
  generation(principal: Principal, url: string): number | undefined;
  /** The clock an answer marked with a window (kept-window.ts) is checked against. */
  now?(): number;
}

/** What a route says of itself in its API's document, besides what the core knows. */
export type RouteDoc = Pick<
  OperationDoc,
  'operationId' | 'summary' | 'description' | 'tags' | 'security' | 'bodyContentTypes' | 'responses'
>;

/** One API's answers to the steps of the core. */
export interface RouteAdapter<D, I, O, S = undefined> {
  /** The OpenAPI document the API's operations go into. */
  readonly document: string;
  /** Set on a cluster node: where requests run (placement.ts). */
  readonly placement?: Placement | undefined;
  /** Step 0: the tenant a request concerns, from its principal and path (undefined: here). */
  place?: PlaceOf;
  /** Step 1: throws the API's 401 or 403. Undefined when the handler reads the caller itself. */
  admit(req: FastifyRequest, def: D): Principal | undefined;
  /** Steps 2, 4, 5: throws the API's 400 when `value` does not match `schema`. */
  check(schema: TSchema, value: unknown, part: InputPart, def: D): void;
  /** Step 3: throws the API's 403 or 404. */
  scope?(principal: Principal | undefined, params: Record<string, string>): S;
  /** The body the schema checks (absent: the parsed body; undefined and not required: unchecked). */
  bodyOf?(raw: unknown, required: boolean): unknown;
  /** The query the schema checks; undefined skips the check. */
  queryOf(req: FastifyRequest, schema: TObject): unknown;
  /** Step 6: the handler's input (`body` and `query` as checked; undefined without a schema). */
  input(
    req: FastifyRequest,
    principal: Principal | undefined,
    params: Record<string, string>,
    scope: S,
    body: unknown,
    query: unknown,
  ): I;
  /** Step 7: writes the outcome (called without `this`). Absent: Fastify sends what the handler returned. */
  render?(reply: FastifyReply, outcome: O, input: I, def: D): unknown;
  /** The outcome as the text `render` would send, when it may be kept (a plain 200); else undefined. */
  answerOf?(outcome: O, input: I, def: D): KeptAnswer | undefined;
}

/** The operation's path in the document: the root row `/` is the prefix itself, as Fastify registers it. */
export const documentedPath = (prefix: string, url: string) => (url === '/' ? prefix : prefix + url);

/** Registers (and documents) one route of an API through the core. */
export function addRoute<D, I, O, S>(
  app: FastifyInstance,
  docs: ApiDocs,
  adapter: RouteAdapter<D, I, O, S>,
  route: CoreRoute<D, I, O>,
): void {
  // Every string, array and name of every route's input gets its size and characters (bounds.ts).
  for (const schema of [route.params, route.query, route.body]) bounded(schema);
  if (route.doc) document(docs, adapter.document, app.prefix, route, route.doc);
  const { def, bodyRequired } = route;
  const paramsSchema = route.params;
  const bodySchema = route.body;
  const querySchema = route.query;
  const render = adapter.render;
  const cached = route.cached && adapter.answerOf ? route.cached : undefined;
  const handler: RouteHandlerMethod = (req, reply) => {
    const principal = adapter.admit(req, def);
    let generation: number | undefined;
    if (cached && principal) {
      generation = cached.generation(principal, req.url);
      const kept =
        generation === undefined
          ? undefined
          : cached.cache.get(principal, req.url, generation, cached.now?.());
      if (kept) return sendKept(reply, kept);
    }
    const params = (req.params ?? {}) as Record<string, string>;
    if (paramsSchema) adapter.check(paramsSchema, params, 'params', def);
    const scope = adapter.scope ? adapter.scope(principal, params) : (undefined as S);
    let body: unknown;
    if (bodySchema) {
      body = adapter.bodyOf ? adapter.bodyOf(req.body, bodyRequired) : req.body;
      if (body !== undefined || bodyRequired) adapter.check(bodySchema, body ?? {}, 'body', def);
    }
    let query: unknown;
    if (querySchema) {
      query = adapter.queryOf(req, querySchema);
      if (query !== undefined) adapter.check(querySchema, query, 'query', def);
    }
    const input = adapter.input(req, principal, params, scope, body, query);
    const outcome = route.handle(input, req, reply);
    if (generation !== undefined) {
      // Kept under the count read before the handler ran: a change made meanwhile drops it.
      const keep = (o: O) => {
        const answer = adapter.answerOf!(o, input, def);
        if (!answer) return false;
        const window = windowOf(o);
        cached!.cache.set(principal!, req.url, generation, window ? { ...answer, window } : answer);
        sendKept(reply, answer);
        return true;
      };
      if (!(outcome instanceof Promise)) {
        if (keep(outcome)) return;
      } else if (!render) {
        return outcome.then((o) => (keep(o) ? reply : o));
      } else {
        return outcome.then((o) => void (keep(o) || render(reply, o, input, def)));
      }
    }
    if (!render) return outcome;
    if (outcome instanceof Promise) return outcome.then((o) => void render(reply, o, input, def));
    render(reply, outcome, input, def);
  };
  const place = route.place ?? adapter.place;
  const placed =
    adapter.placement && (place || route.placeByBody)
      ? placementHooks(adapter.placement, place, route.placeByBody, handler)
      : undefined;
  app.route({
    method: route.method,
    url: route.url,
    ...(route.config ? { config: route.config } : {}),
    ...(placed ? placed : { handler }),
  });
}

function sendKept(reply: FastifyReply, kept: KeptAnswer): void {
  reply.code(kept.status).type(kept.contentType).send(kept.body);
}

function document<D, I, O>(
  docs: ApiDocs,
  name: string,
  prefix: string,
  route: CoreRoute<D, I, O>,
  doc: RouteDoc,
): void {
  docs.addOperation(name, {
    method: route.method,
    path: documentedPath(prefix, route.url),
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(doc.security ? { security: doc.security } : {}),
    ...(route.params ? { params: route.params } : {}),
    ...(route.query ? { query: route.query } : {}),
    ...(route.body ? { body: route.body, bodyRequired: route.bodyRequired } : {}),
    ...(doc.bodyContentTypes ? { bodyContentTypes: doc.bodyContentTypes } : {}),
    responses: doc.responses,
  });
}
