import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CcPermission } from '../../core/permissions.js';
import type { HttpMethod, ResponseDoc } from '../schema/openapi.js';
import type { CcRuntime } from './cc-runtime.js';
import type { Tenant } from '../../directory/model.js';
import { pathTenant, principal, requirePermission } from './access.js';
import {
  BusyBodySchema,
  CallControlErrorBodySchema,
  ErrorBodySchema,
  ForbiddenBodySchema,
  InternalErrorBodySchema,
  NotFoundBodySchema,
  PayloadTooLargeBodySchema,
  UnsupportedMediaTypeBodySchema,
  QuirkErrorBodySchema,
  UnauthorizedBodySchema,
} from './error-schemas.js';
import { badRequest, useSuccessTrue400 } from './errors.js';
import { invalidReason } from './validate.js';
import { addRoute, type RouteAdapter } from '../route-core/route-core.js';
import { requestPrincipal } from '../auth/request-principal.js';
import { type CcKeptBy, ccCachedRead } from './cc-read-cache.js';

export const CC_DOCUMENT = 'contact-center';

/** How a route's 400 body looks (spec Errors, docs/decisions.md §1.7). */
export type BadRequestBody =
  /** `{success: false, reason}` */
  | 'normal'
  /** `{success: true, reason}`: call listing, single call, call search. */
  | 'successTrue'
  /** `success: true` only for the requests `successTrueFor` names (startSuppression). */
  | { successTrueFor: (body: unknown) => boolean };

export interface CcOperationDoc<B extends TSchema | undefined, Q extends TObject | undefined> {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  params?: TObject;
  query?: Q;
  body?: B;
  /** Defaults to JSON only. */
  bodyContentTypes?: string[];
  /** Overrides the document's Bearer security (`[]`: no token). */
  security?: Record<string, string[]>[];
  /** The 200 answer. */
  ok: ResponseDoc & { schema: TSchema };
  /** When a 404 can answer: why. Operations with path parameters always document one. */
  notFound?: string;
  /** Descriptions of 401 and 403 when they mean something else than a bad token and a missing permission. */
  unauthorized?: string;
  forbidden?: string;
}

export interface CcInput<B extends TSchema | undefined, Q extends TObject | undefined> {
  params: Record<string, string>;
  /**
   * The tenant the path names (`:tenant`), checked against the caller (404 unknown, 403 another
   * tenant's). Resolved when called, so a handler's own permission checks may come first.
   */
  tenant(): Tenant;
  body: B extends TSchema ? Static<B> : undefined;
  query: Q extends TObject ? Static<Q> : undefined;
}

export interface CcRouteDef<B extends TSchema | undefined, Q extends TObject | undefined> {
  method: HttpMethod;
  /** Relative to the plugin (`/api/calls/:id`); the document gets the full path. */
  url: string;
  doc: CcOperationDoc<B, Q>;
  /**
   * `API` plus any one of these, checked right after authentication and before the request is
   * validated, so a caller without the permission gets 403 whatever the body (`[]`: `API` alone).
   * Absent for the token endpoint and wherever the permission depends on the request.
   */
  permissions?: readonly CcPermission[];
  badRequestBody?: BadRequestBody;
  /** The reason of the 400 when a path parameter does not match `doc.params`. */
  invalidParams?: string;
  /**
   * A read whose 200 answer is kept as text for the caller and the URL while what it depends on
   * has not changed (cc-read-cache.ts). Its handler must answer with a plain body (no status or
   * header of its own).
   */
  cached?: CcKeptBy;
  handler: (req: FastifyRequest, input: CcInput<B, Q>, reply: FastifyReply) => Promise<unknown> | unknown;
}

/**
 * Registers one contact-center route and documents it in the `contact-center` OpenAPI document.
 * The schemas of `doc` are the ones that validate the request: after the route's `permissions`,
 * params, query and body are checked before the handler runs, and a mismatch answers the API's
 * 400 body naming the field. The steps are the route core's (src/api/route-core).
 */
export function ccRoute<B extends TSchema | undefined = undefined, Q extends TObject | undefined = undefined>(
  app: FastifyInstance,
  runtime: CcRuntime,
  def: CcRouteDef<B, Q>,
): void {
  const { doc } = def;
  addRoute(app, runtime.docs, adapterOf(runtime), {
    method: def.method,
    url: def.url,
    def: def as AnyCcRoute,
    params: doc.params,
    body: doc.body,
    bodyRequired: true,
    query: doc.query,
    doc: { ...doc, responses: errorResponses(def, def.badRequestBody ?? 'normal') },
    ...(doc.bodyContentTypes ? { config: { mediaTypes: doc.bodyContentTypes } } : {}),
    ...(def.cached ? { cached: ccCachedRead(runtime, def.cached) } : {}),
    handle: (input, req, reply) => def.handler(req, input as CcInput<B, Q>, reply),
  });
}

type AnyCcRoute = CcRouteDef<TSchema | undefined, TObject | undefined>;
type AnyCcInput = CcInput<TSchema | undefined, TObject | undefined>;

const adapters = new WeakMap<CcRuntime, RouteAdapter<AnyCcRoute, AnyCcInput, unknown>>();
const adapterOf = (runtime: CcRuntime) => {
  let adapter = adapters.get(runtime);
  if (!adapter) adapters.set(runtime, (adapter = ccAdapter(runtime)));
  return adapter;
};

/**
 * The contact-center API's steps of the route core: a route's 400 body is marked first (the
 * error handler renders it); the permission is checked on the Bearer hook's principal; a value
 * that does not match its schema is a 400 whose `reason` names the field; an absent body reads
 * as `{}`; empty query values count as absent; the path's tenant is resolved when the handler
 * asks (after its own permission checks). Fastify sends what the handler returns.
 */
function ccAdapter(runtime: CcRuntime): RouteAdapter<AnyCcRoute, AnyCcInput, unknown> {
  return {
    document: CC_DOCUMENT,
    placement: runtime.placement,
    place: (req, params) => placeOf(runtime, req, params),
    admit(req, def) {
      const quirk = def.badRequestBody ?? 'normal';
      if (quirk === 'successTrue' || (typeof quirk === 'object' && quirk.successTrueFor(req.body))) {
        useSuccessTrue400(req);
      }
      if (def.permissions) requirePermission(principal(req), ...def.permissions);
      // The key of a kept read; the handlers read the caller themselves.
      return def.cached ? principal(req) : undefined;
    },
    check(schema, value, part, def) {
      const reason = invalidReason(schema, value);
      if (reason) throw badRequest(part === 'params' ? (def.invalidParams ?? reason) : reason);
    },
    answerOf: (outcome) => ({ status: 200, contentType: JSON_UTF8, body: JSON.stringify(outcome) }),
    bodyOf: (raw) => raw ?? {},
    queryOf: (req) => presentQuery(req.query),
    input: (req, _principal, params, _scope, body, query) =>
      ({
        params,
        tenant: () => pathTenant(runtime.directory, principal(req), params.tenant ?? ''),
        body,
        query,
      }) as AnyCcInput,
  };
}

/**
 * The tenant a contact-center request concerns (route-core/placement.ts): the one its path names
 * when the caller may reach it, else the caller's own. A telco user's request without a tenant in
 * its path (and the token grant, which has no caller yet) runs here.
 */
function placeOf(runtime: CcRuntime, req: FastifyRequest, params: Record<string, string>) {
  const p = requestPrincipal(req);
  if (!p) return undefined;
  if (params.tenant === undefined) return p.tenantId;
  const t = runtime.directory.tenantByCcUuid(params.tenant);
  return t && (p.authority === 'telco' || p.tenantId === t.tenantId) ? t.tenantId : undefined;
}

/** The content type Fastify gives a serialized body. */
const JSON_UTF8 = 'application/json; charset=utf-8';

/** Query parameters with an empty value count as absent. */
function presentQuery(query: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries((query ?? {}) as Record<string, unknown>).filter(([, v]) => v !== ''),
  );
}

const json = (description: string, schema: TSchema): ResponseDoc => ({ description, schema });

function errorResponses<B extends TSchema | undefined, Q extends TObject | undefined>(
  def: CcRouteDef<B, Q>,
  quirk: BadRequestBody,
): Record<string, ResponseDoc> {
  const { doc } = def;
  const hasBody = def.method === 'POST' || def.method === 'PUT';
  const notFound = doc.notFound ?? (def.url.includes(':') ? 'An id in the path names nothing.' : undefined);
  const badRequestSchema =
    quirk === 'successTrue'
      ? QuirkErrorBodySchema
      : quirk === 'normal'
        ? ErrorBodySchema
        : CallControlErrorBodySchema;
  return {
    '200': doc.ok,
    '400': json('The request is not valid; `reason` says why.', badRequestSchema),
    '401': json(doc.unauthorized ?? 'No valid Bearer token.', UnauthorizedBodySchema),
    '403': json(
      doc.forbidden ?? 'The caller lacks a permission or the tenant is not theirs.',
      ForbiddenBodySchema,
    ),
    ...(notFound ? { '404': json(notFound, NotFoundBodySchema) } : {}),
    ...(hasBody
      ? { '413': json('The body is larger than the server accepts.', PayloadTooLargeBodySchema) }
      : {}),
    ...(def.method !== 'GET'
      ? {
          '415': json(
            `The Content-Type is not ${(doc.bodyContentTypes ?? ['application/json']).join(' or ')} (none is fine without a body).`,
            UnsupportedMediaTypeBodySchema,
          ),
        }
      : {}),
    '500': json('An unexpected failure.', InternalErrorBodySchema),
    '503': {
      ...json('Busy: the client has too many requests in flight; retry later.', BusyBodySchema),
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before retrying.',
          schema: Type.Integer({ minimum: 1 }),
          required: true,
        },
      },
    },
  };
}
