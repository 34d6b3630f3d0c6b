import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CcPermission } from '../../core/permissions.js';
import type { HttpMethod, ResponseDoc } from '../schema/openapi.js';
import type { Runtime } from '../../server/runtime.js';
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
import { bounded } from '../schema/bounds.js';
import { invalidReason } from './validate.js';

export const CC_DOCUMENT = 'contact-center';

/** How a route's 400 body looks (spec Errors, DESIGN §3.7). */
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
  handler: (req: FastifyRequest, input: CcInput<B, Q>, reply: FastifyReply) => Promise<unknown>;
}

/**
 * Registers one contact-center route and documents it in the `contact-center` OpenAPI document.
 * The schemas of `doc` are the ones that validate the request: after the route's `permissions`,
 * params, query and body are checked before the handler runs, and a mismatch answers the API's
 * 400 body naming the field.
 */
export function ccRoute<B extends TSchema | undefined = undefined, Q extends TObject | undefined = undefined>(
  app: FastifyInstance,
  runtime: Runtime,
  def: CcRouteDef<B, Q>,
): void {
  const { doc } = def;
  const quirk = def.badRequestBody ?? 'normal';
  for (const s of [doc.params, doc.query, doc.body]) bounded(s);
  runtime.docs.addOperation(CC_DOCUMENT, {
    method: def.method,
    path: app.prefix + def.url,
    operationId: doc.operationId,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: doc.tags,
    ...(doc.security ? { security: doc.security } : {}),
    ...(doc.params ? { params: doc.params } : {}),
    ...(doc.query ? { query: doc.query } : {}),
    ...(doc.body ? { body: doc.body, bodyRequired: true } : {}),
    ...(doc.bodyContentTypes ? { bodyContentTypes: doc.bodyContentTypes } : {}),
    responses: errorResponses(def, quirk),
  });
  app.route({
    method: def.method,
    url: def.url,
    ...(doc.bodyContentTypes ? { config: { mediaTypes: doc.bodyContentTypes } } : {}),
    handler: async (req, reply) => {
      if (quirk === 'successTrue' || (typeof quirk === 'object' && quirk.successTrueFor(req.body))) {
        useSuccessTrue400(req);
      }
      if (def.permissions) requirePermission(principal(req), ...def.permissions);
      const params = (req.params ?? {}) as Record<string, string>;
      const paramsReason = doc.params && invalidReason(doc.params, params);
      if (paramsReason) throw badRequest(def.invalidParams ?? paramsReason);
      const body = doc.body ? checked(doc.body, req.body ?? {}) : undefined;
      const query = doc.query ? checked(doc.query, presentQuery(req.query)) : undefined;
      const tenant = () => pathTenant(runtime.directory, principal(req), params.tenant ?? '');
      return def.handler(req, { params, tenant, body, query } as CcInput<B, Q>, reply);
    },
  });
}

function checked(schema: TSchema, value: unknown): unknown {
  const reason = invalidReason(schema, value);
  if (reason) throw badRequest(reason);
  return value;
}

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
