import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { DomainError, forbidden, invalid, notFound } from '../../../core/errors.js';
import { type AccessRule, allows, inTenant, type Principal } from '../../../core/permissions.js';
import type { Runtime } from '../../../server/runtime.js';
import { parseExpand } from './expand.js';
import { applyFilter, parseFilter } from './filter.js';
import type { Entity, ItemSchema, Links } from './model.js';
import type { HeaderDoc, ResponseDoc } from '../../schema/openapi.js';
import { bounded } from '../../schema/bounds.js';
import { firstIssue, type SchemaIssue } from '../../schema/validate.js';
import { PROBLEM_JSON, problem, sendProblem } from './problem.js';
import { queryValues, rawQueryValues } from './query.js';
import { HAL_JSON, type Namespace, renderHal } from './render.js';

export type Verb = 'GET' | 'POST' | 'PUT' | 'DELETE';
const VERBS: readonly Verb[] = ['GET', 'POST', 'PUT', 'DELETE'];
const OTHER_METHODS = ['PATCH', 'OPTIONS', 'TRACE'] as const;

/** What a handler sees: the authenticated requester and the parsed request. */
export interface Ctx {
  runtime: Runtime;
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
  doc?: VerbDoc;
  handle(ctx: Ctx): Outcome | Promise<Outcome>;
}

/**
 * One row of the resource registry. Every voice resource, read-only or writable, is a row:
 * a path (Fastify syntax, under /api) and the verbs it supports. Unlisted verbs answer 405.
 */
export interface ResourceDef {
  path: string;
  ns?: Namespace;
  verbs: Partial<Record<Verb, VerbDef>>;
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
  runtime: Runtime;
  principalOf(req: FastifyRequest): Principal;
  /** Where the operations are documented: the document name and the plugin's URL prefix. */
  openapi?: { document: string; prefix: string; problem: TSchema };
}

export function registerResources(
  app: FastifyInstance,
  defs: readonly ResourceDef[],
  deps: RegistryDeps,
): void {
  for (const def of defs) registerResource(app, def, deps);
}

function registerResource(app: FastifyInstance, def: ResourceDef, deps: RegistryDeps): void {
  const supported = VERBS.filter((v) => def.verbs[v]);
  const allow = supported.flatMap((v) => (v === 'GET' ? ['GET', 'HEAD'] : [v])).join(', ');
  for (const verb of supported) {
    const vd = def.verbs[verb]!;
    if (vd.doc) for (const s of [vd.doc.params, vd.doc.query, vd.doc.body]) bounded(s);
    if (vd.doc && deps.openapi) document(deps, def.path, verb, vd.doc);
    app.route({
      method: verb,
      url: def.path,
      // Not async: most handlers answer synchronously, and a synchronous answer skips the promise,
      // the awaited thenable reply and their microtask turns (seen in the request-path profile).
      // A thrown error reaches the error handler either way.
      handler: (req, reply) => {
        const ctx = buildCtx(req, deps, vd.rules, vd.doc?.params);
        if (vd.doc) validateRequest(vd.doc, ctx);
        const outcome = vd.handle(ctx);
        const ns = def.ns ?? 'v1';
        if (outcome instanceof Promise) return outcome.then((o) => void send(reply, o, ctx, ns));
        send(reply, outcome, ctx, ns);
      },
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
 * The requester, checked against the verb's rules; then the path parameters against the
 * documented ones (400 INVALID_FIELD naming the parameter); then the tenant of the path.
 */
function buildCtx(
  req: FastifyRequest,
  deps: RegistryDeps,
  rules: readonly AccessRule[],
  paramsSchema: TObject | undefined,
): Ctx {
  const principal = deps.principalOf(req);
  if (!allows(principal, rules))
    throw forbidden('FORBIDDEN', 'The requester has no authority for this resource.');
  const params = (req.params ?? {}) as Record<string, string>;
  const issue = paramsSchema && firstIssue(paramsSchema, params);
  if (issue) throw fieldError(issue);
  const ctx: Ctx = {
    runtime: deps.runtime,
    principal,
    params,
    body: req.body,
    url: req.url,
    query: (name) => queryValues(req.url, name)[0],
  };
  if (params.tenantId !== undefined) ctx.tenantId = checkTenant(deps.runtime, principal, params.tenantId);
  return ctx;
}

function document(deps: RegistryDeps, path: string, method: Verb, doc: VerbDoc): void {
  const { document: name, prefix, problem: problemSchema } = deps.openapi!;
  const error = (description: string): ResponseDoc => ({
    description,
    schema: problemSchema,
    contentType: PROBLEM_JSON,
  });
  deps.runtime.docs.addOperation(name, {
    method,
    // The root row '/' is the prefix itself (`/api`), as Fastify registers it.
    path: path === '/' ? prefix : prefix + path,
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(doc.params ? { params: doc.params } : {}),
    ...(doc.query ? { query: doc.query } : {}),
    ...(doc.body ? { body: doc.body, bodyRequired: doc.bodyRequired ?? true } : {}),
    responses: {
      ...doc.responses,
      '4XX': error('The request was refused: see errorCode and parameters (DESIGN §3.2).'),
      '503': {
        ...error('Busy: the request could not start within the busy delay; retry later.'),
        headers: { 'Retry-After': RETRY_AFTER },
      },
    },
  });
}

/** Checks the body and query against the verb's documented schemas (buildCtx checked the path). */
function validateRequest(doc: VerbDoc, ctx: Ctx): void {
  if (doc.body && (ctx.body !== undefined || (doc.bodyRequired ?? true))) {
    const issue = firstIssue(doc.body, ctx.body ?? {});
    if (issue) throw doc.refuse ? doc.refuse(issue, 'body') : fieldError(issue);
  }
  // Without a query string the query is {}, which an object schema with nothing required accepts.
  if (doc.query && (ctx.url.includes('?') || doc.query.required?.length || doc.query.minProperties)) {
    const query: Record<string, string> = {};
    for (const name of Object.keys(doc.query.properties)) {
      const v = ctx.query(name);
      if (v !== undefined) query[name] = v;
    }
    const issue = firstIssue(doc.query, query);
    if (issue) throw doc.refuse ? doc.refuse(issue, 'query') : fieldError(issue);
  }
}

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
export function checkTenant(runtime: Runtime, p: Principal, raw: string): number {
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

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
