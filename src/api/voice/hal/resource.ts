import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { DomainError, forbidden, invalid, notFound } from '../../../core/errors.js';
import { type AccessRule, allows, inTenant, type Principal } from '../../../core/permissions.js';
import type { VoiceRuntime } from '../voice-runtime.js';
import { parseExpand } from './expand.js';
import { applyFilter, parseFilter } from './filter.js';
import type { Entity, ItemSchema, Links } from './model.js';
import type { HeaderDoc, ResponseDoc } from '../../schema/openapi.js';
import { addRoute, type CachedRead, type RouteAdapter, type RouteDoc } from '../../route-core/route-core.js';
import { type KeptAnswer, ReadCache } from '../../route-core/read-cache.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import type { PlaceOf, Target } from '../../route-core/placement.js';
import { firstIssue, type SchemaIssue } from '../../schema/validate.js';
import { PROBLEM_JSON, problem, sendProblem } from './problem.js';
import { queryValues, rawQueryValues } from './query.js';
import { HAL_JSON, type Namespace, renderHal } from './render.js';

export type Verb = 'GET' | 'POST' | 'PUT' | 'DELETE';
const VERBS: readonly Verb[] = ['GET', 'POST', 'PUT', 'DELETE'];
const OTHER_METHODS = ['PATCH', 'OPTIONS', 'TRACE'] as const;

/** What a handler sees: the authenticated requester and the parsed request. */
export interface Ctx {
  /** What the voice API may reach (voice-runtime.ts), never the server's whole runtime. */
  runtime: VoiceRuntime;
  principal: Principal;
  params: Record<string, string>;
  body: unknown;
  /** The request URL, for `expand`/`filter` and other query parameters. */
  url: string;
  /** Set when the path names a tenant: already checked against the requester. */
  tenantId?: number;
  query(name: string): string | undefined;
}

export type Outcome =
  | { entity: Entity; status?: number; location?: string }
  | { empty: true; status?: number; location?: string }
  | { json: unknown; status?: number; location?: string };

/**
 * The verb's entry in the voice OpenAPI document. `params`, `body` and `query` also validate the
 * request before the handler runs: a mismatch is a 400 naming the field (MISSING_FIELD /
 * INVALID_FIELD). Every operation also documents the problem+json answers 4XX and 503.
 */
export interface VerbDoc {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: TObject;
  query?: TObject;
  body?: TSchema;
  /** Defaults to true when `body` is given. */
  bodyRequired?: boolean;
  /** The successful answers (and any error worth its own description). */
  responses: Record<string, ResponseDoc>;
  /** How a body or query that does not match is refused (default: 400 MISSING_FIELD / INVALID_FIELD). */
  refuse?: (issue: SchemaIssue, where: 'body' | 'query') => Error;
}

export interface VerbDef {
  /** Who may use this verb (core/permissions AccessRule tokens). */
  rules: readonly AccessRule[];
  /**
   * A GET whose answer depends only on the requester, the URL, the directory and phone
   * registrations (no clock): kept as text until one of those changes
   * (route-core/read-cache.ts). `live`: it shows the switch's live state too (presence, park
   * locations; never a duration), and is kept until that changes as well. A `KeptBy`: it shows
   * what that count follows (the switch's calls, a WebSocket's subscription sets, webhooks).
   */
  cached?: true | 'live' | KeptBy;
  /**
   * On a cluster node, first wait until the node has consumed what the stream held. A read served
   * from what other nodes' events tell (phones of tenants another node runs) then shows a change
   * its client just made; it is not kept there (the count it would be kept under moves only as the
   * node consumes). A change of what a socket hears then applies to the events raised after it,
   * not to earlier ones the node had yet to consume, as on one node.
   */
  catchUp?: true;
  doc?: VerbDoc;
  handle(ctx: Ctx): Outcome | Promise<Outcome>;
}

/**
 * What a kept read shows besides the requester, the URL and the directory: a count that grows
 * with every change of it. One object per count: the reads that name it share its kept answers.
 */
export interface KeptBy {
  count(runtime: VoiceRuntime): number;
  /**
   * False when this read's answer moves by itself now (a live answered call's talkDuration): it
   * is made afresh and not kept. Absent: always kept.
   */
  keeps?(runtime: VoiceRuntime, principal: Principal, url: string): boolean;
}

/** Phone registrations (`cached: true`): the devices' `registered`. */
const REGISTRATIONS: KeptBy = { count: (runtime) => runtime.switch.registrationGeneration() };
/** The switch's live state (`cached: 'live'`), registrations included. */
export const LIVE_STATE: KeptBy = { count: (runtime) => runtime.switch.stateGeneration() };

/**
 * One row of the resource registry. Every voice resource, read-only or writable, is a row:
 * a path (Fastify syntax, under /api) and the verbs it supports. Unlisted verbs answer 405.
 */
export interface ResourceDef {
  path: string;
  ns?: Namespace;
  verbs: Partial<Record<Verb, VerbDef>>;
  /** In a cluster: what its requests concern, instead of the voice rule (route-core/placement.ts). */
  place?: PlaceOf<VoiceRuntime>;
}

export interface ListSpec {
  /** The `_embedded` name of the elements. */
  name: string;
  /** What `filter` may name (only caller-visible keys). */
  schema: ItemSchema;
  items: Entity[];
  props?: Record<string, unknown>;
  links: Links;
}

/** A list resource: the one place `filter` is applied (`expand` is applied by the renderer). */
export function listEntity(ctx: Ctx, spec: ListSpec): Entity {
  const filter = parseFilter(rawQueryValues(ctx.url, 'filter'), spec.schema);
  return {
    props: spec.props ?? {},
    links: spec.links,
    embeds: { [spec.name]: applyFilter(spec.items, filter) },
    listOf: spec.name,
  };
}

export interface RegistryDeps {
  runtime: VoiceRuntime;
  principalOf(req: FastifyRequest): Principal;
  /** The document the operations go into, and the body of its refusals. */
  openapi: { document: string; problem: TSchema };
}

export function registerResources(
  app: FastifyInstance,
  defs: readonly ResourceDef[],
  deps: RegistryDeps,
): void {
  const adapter = voiceAdapter(deps);
  const { runtime } = deps;
  const reads = new Map<KeptBy, CachedRead>();
  const cached = (by: KeptBy): CachedRead => {
    let read = reads.get(by);
    if (read) return read;
    const { keeps } = by;
    // Each count only grows, so a sum moves whenever one of its counts does.
    const generation = keeps
      ? (p: Principal, url: string) =>
          keeps(runtime, p, url) ? runtime.directory.generation + by.count(runtime) : undefined
      : () => runtime.directory.generation + by.count(runtime);
    reads.set(by, (read = { cache: new ReadCache(), generation }));
    return read;
  };
  for (const def of defs) registerResource(app, def, deps, adapter, cached);
}

const keptBy = (cached: VerbDef['cached']): KeptBy | undefined =>
  cached === true ? REGISTRATIONS : cached === 'live' ? LIVE_STATE : cached;

/** A verb of a row, as the route core hands it back to the voice adapter. */
interface VoiceRoute {
  verb: VerbDef;
  ns: Namespace;
}

function registerResource(
  app: FastifyInstance,
  def: ResourceDef,
  deps: RegistryDeps,
  adapter: RouteAdapter<VoiceRoute, Ctx, Outcome, number | undefined>,
  cached: (by: KeptBy) => CachedRead,
): void {
  const own = def.place;
  const place: PlaceOf | undefined = own && ((req, params) => own(req, params, deps.runtime));
  const supported = VERBS.filter((v) => def.verbs[v]);
  const allow = supported.flatMap((v) => (v === 'GET' ? ['GET', 'HEAD'] : [v])).join(', ');
  for (const verb of supported) {
    const vd = def.verbs[verb]!;
    const doc = vd.doc;
    const catchUp =
      vd.catchUp && deps.runtime.eventsCaughtUp ? () => deps.runtime.eventsCaughtUp!() : undefined;
    const kept = verb === 'GET' && !catchUp ? keptBy(vd.cached) : undefined;
    addRoute(app, deps.runtime.docs, adapter, {
      method: verb,
      url: def.path,
      def: { verb: vd, ns: def.ns ?? 'v1' },
      params: doc?.params,
      body: doc?.body,
      bodyRequired: doc?.bodyRequired ?? true,
      query: doc?.query,
      place,
      cached: kept && cached(kept),
      doc: doc && operation(deps, doc),
      handle: catchUp
        ? async (ctx: Ctx) => {
            await catchUp();
            return vd.handle(ctx);
          }
        : vd.handle,
    });
  }
  const unsupported = [...VERBS.filter((v) => !def.verbs[v]), ...OTHER_METHODS];
  if (!def.verbs.GET) unsupported.push('HEAD' as never);
  app.route({
    method: unsupported,
    url: def.path,
    config: { undocumented: true },
    handler: async (req, reply) =>
      sendProblem(reply, problem(405, 'METHOD_NOT_ALLOWED', `${req.method} is not supported here.`), {
        allow,
      }),
  });
}

/**
 * The voice API's steps of the route core: the requester checked against the verb's rules
 * (403); a parameter, body or query that does not match its schema is a 400 naming the field
 * (MISSING_FIELD / INVALID_FIELD, or the verb's own `refuse`); the tenant of the path checked
 * against the requester before the body is; outcomes rendered as HAL.
 */
function voiceAdapter(deps: RegistryDeps): RouteAdapter<VoiceRoute, Ctx, Outcome, number | undefined> {
  const { runtime } = deps;
  return {
    document: deps.openapi.document,
    placement: runtime.placement,
    place: (req, params) => placeOf(runtime, req, params),
    admit(req, { verb }) {
      const principal = deps.principalOf(req);
      if (!allows(principal, verb.rules))
        throw forbidden('FORBIDDEN', 'The requester has no authority for this resource.');
      return principal;
    },
    check(schema, value, part, { verb }) {
      const issue = firstIssue(schema, value);
      if (!issue) return;
      const refuse = part === 'params' ? undefined : verb.doc?.refuse;
      throw refuse ? refuse(issue, part as 'body' | 'query') : fieldError(issue);
    },
    scope: (principal, params) =>
      params.tenantId === undefined ? undefined : checkTenant(runtime, principal!, params.tenantId),
    // Without a query string the query is {}, which an object schema with nothing required accepts.
    queryOf(req, schema) {
      if (!req.url.includes('?') && !schema.required?.length && !schema.minProperties) return undefined;
      const query: Record<string, string> = {};
      for (const name of Object.keys(schema.properties)) {
        const v = queryValues(req.url, name)[0];
        if (v !== undefined) query[name] = v;
      }
      return query;
    },
    input(req, principal, params, tenantId) {
      const ctx: Ctx = {
        runtime,
        principal: principal!,
        params,
        body: req.body,
        url: req.url,
        query: (name) => queryValues(req.url, name)[0],
      };
      if (tenantId !== undefined) ctx.tenantId = tenantId;
      return ctx;
    },
    render: (reply, outcome, ctx, { ns }) => send(reply, outcome, ctx, ns),
    answerOf: (outcome, ctx, { ns }) => answerOf(outcome, ctx, ns),
  };
}

/**
 * What a voice request concerns (route-core/placement.ts): a request on a WebSocket's
 * subscription sets, that socket; else the tenant its path names when the requester may reach
 * it, else the requester's own. An unscoped telco user's request without a tenant in its path
 * runs here.
 */
function placeOf(
  runtime: VoiceRuntime,
  req: FastifyRequest,
  params: Record<string, string>,
): Target | undefined {
  if (params.webSocketId !== undefined) return { socket: params.webSocketId };
  const p = requestPrincipal(req);
  if (!p) return undefined;
  const raw = params.tenantId;
  if (raw === undefined) return p.tenantId;
  const tenantId = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  return inTenant(p, tenantId) && runtime.directory.tenant(tenantId) ? tenantId : undefined;
}

/** The verb's operation: its own answers, and the problem+json answers 4XX and 503 of every operation. */
function operation(deps: RegistryDeps, doc: VerbDoc): RouteDoc {
  const error = (description: string): ResponseDoc => ({
    description,
    schema: deps.openapi.problem,
    contentType: PROBLEM_JSON,
  });
  return {
    ...doc,
    responses: {
      ...doc.responses,
      '4XX': error('The request was refused: an RFC 9457 problem; see errorCode and parameters.'),
      '503': {
        ...error('Busy: the request could not start within the busy delay; retry later.'),
        headers: { 'Retry-After': RETRY_AFTER },
      },
    },
  };
}

/** The `Location` header of an answer that created a resource (`what`: its description). */
export const locationHeader = (what: string): Record<string, HeaderDoc> => ({
  Location: { description: what, schema: Type.String(), required: true },
});

/** `Retry-After` of every voice 503 (busy delay, WebSocket maximum). */
export const RETRY_AFTER: HeaderDoc = {
  description: 'Seconds to wait before retrying.',
  schema: Type.Integer({ minimum: 1 }),
  required: true,
};

const fieldError = (issue: SchemaIssue) =>
  invalid(issue.missing ? 'MISSING_FIELD' : 'INVALID_FIELD', issue.message, [
    { type: 'field', value: issue.field },
  ]);

/** The `tenantId` path parameter of every voice operation: the tenant's number, as text. */
export const TenantIdParam = Type.String({ pattern: '^[0-9]+$', description: 'The tenant id (digits).' });

/** Tenant isolation: a requester reaches only its own tenant (an unscoped telco user reaches all). */
export function checkTenant(runtime: VoiceRuntime, p: Principal, raw: string): number {
  const tenantId = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (Number.isNaN(tenantId) || !inTenant(p, tenantId)) {
    throw forbidden('TENANT_FORBIDDEN', 'The requester has no access to this tenant.', [
      { type: 'tenantId', value: raw },
    ]);
  }
  if (!runtime.directory.tenant(tenantId)) {
    throw notFound('TENANT_NOT_FOUND', `Tenant ${raw} does not exist.`, [{ type: 'tenantId', value: raw }]);
  }
  return tenantId;
}

function send(reply: FastifyReply, outcome: Outcome, ctx: Ctx, ns: Namespace): FastifyReply {
  if (outcome.location) reply.header('location', outcome.location);
  reply.code(outcome.status ?? 200);
  if ('entity' in outcome) {
    const expand = parseExpand(queryValues(ctx.url, 'expand'));
    return reply.type(HAL_JSON).send(renderHal(outcome.entity, expand, ns));
  }
  if ('json' in outcome) return reply.type(HAL_JSON).send(outcome.json);
  return reply.send();
}

/** The text `send` sends for a plain 200 (what JSON.stringify makes of the body, as Fastify does). */
function answerOf(outcome: Outcome, ctx: Ctx, ns: Namespace): KeptAnswer | undefined {
  if (outcome.location || (outcome.status ?? 200) !== 200) return undefined;
  let body: string;
  if ('entity' in outcome)
    body = JSON.stringify(renderHal(outcome.entity, parseExpand(queryValues(ctx.url, 'expand')), ns));
  else if ('json' in outcome) body = JSON.stringify(outcome.json);
  else return undefined;
  return { status: 200, contentType: HAL_JSON_UTF8, body };
}

/** The content type Fastify gives a serialized HAL body. */
const HAL_JSON_UTF8 = `${HAL_JSON}; charset=utf-8`;

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
