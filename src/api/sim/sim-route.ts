import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from '../../core/errors.js';
import type { SimRuntime } from './sim-runtime.js';
import type { HttpMethod, ResponseDoc } from '../schema/openapi.js';
import { firstIssue } from '../schema/validate.js';
import { SIM_OPENAPI } from './openapi-info.js';
import { addRoute, type CoreRoute, type RouteAdapter } from '../route-core/route-core.js';
import type { PlaceOf, PlaceOfBody } from '../route-core/placement.js';
import { SimErrorSchema } from './sim-schemas.js';

type Params<P> = P extends TObject ? Static<P> : Record<string, string>;
type Body<B> = B extends TSchema ? Static<B> : undefined;

export interface SimRoute<P extends TObject | undefined, B extends TSchema | undefined> {
  method: HttpMethod;
  /** Relative to the plugin's prefix (`/devices/:deviceId/dial`). */
  url: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: 'control' | 'devices' | 'pstn';
  params?: P;
  body?: B;
  /** Whether a body must be sent; without one, an optional body reads as `{}`. Default true. */
  bodyRequired?: boolean;
  /** The answers besides the refusals every route shares (401, 403, other 4XX, 5XX). */
  responses: Record<string, ResponseDoc>;
  /** In a cluster: the tenant the body names, for a route whose path names none (placement.ts). */
  placeByBody?: PlaceOfBody;
  /** In a cluster: what the request concerns, instead of the phone or tenant of its path. */
  place?: PlaceOf;
  handler(
    input: { params: Params<P>; body: Body<B> },
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<unknown>;
}

/** A documented refusal: the error shape, with the codes it can carry named in the description. */
export const refusal = (description: string): ResponseDoc => ({ description, schema: SimErrorSchema });

/** A handler for an action that answers 204 without a body once `act` is done. */
export function noContent<I>(act: (input: I) => unknown) {
  return async (input: I, _req: FastifyRequest, reply: FastifyReply) => {
    await act(input);
    return reply.code(204).send();
  };
}

const SHARED_RESPONSES: Record<string, ResponseDoc> = {
  '401': {
    ...refusal('`UNAUTHORIZED`: no or wrong Basic credentials.'),
    headers: { 'WWW-Authenticate': { description: 'The Basic challenge.', schema: Type.String() } },
  },
  '403': {
    ...refusal(
      '`FORBIDDEN`: the user is not an unscoped telco administrator (SM or TBAM); ' +
        '`LOCKED_OUT` after repeated failed logins, with Retry-After.',
    ),
    headers: { 'Retry-After': { description: 'Seconds until a lock-out ends.', schema: Type.Integer() } },
  },
  '4XX': refusal('Another refusal: `BODY_TOO_LARGE` (413), `UNSUPPORTED_MEDIA_TYPE` (415).'),
  '5XX': refusal('`INTERNAL_ERROR` (500): the simulator failed to handle the request.'),
};

/**
 * Registers one simulator route and documents it in the `simulator` OpenAPI document. The path
 * parameters and the body are checked against the same schemas the document shows; an issue
 * becomes a 400 `MISSING_<FIELD>` or `INVALID_<FIELD>` (`INVALID_BODY` for the body as a whole).
 * The steps are the route core's (src/api/route-core); the scope's hook admitted the caller.
 */
export function simRoute<
  P extends TObject | undefined = undefined,
  B extends TSchema | undefined = undefined,
>(app: FastifyInstance, runtime: SimRuntime, route: SimRoute<P, B>): void {
  addRoute(app, runtime.docs, adapterOf(runtime), {
    method: route.method,
    url: route.url,
    def: undefined,
    params: route.params,
    body: route.body,
    bodyRequired: route.bodyRequired ?? true,
    placeByBody: route.placeByBody,
    place: route.place,
    doc: { ...route, tags: [route.tag], responses: { ...route.responses, ...SHARED_RESPONSES } },
    handle: route.handler as CoreRoute<undefined, SimInput, unknown>['handle'],
  });
}

type SimInput = { params: Record<string, string>; body: unknown };

const SIM_ADAPTER: RouteAdapter<undefined, SimInput, unknown> = {
  document: SIM_OPENAPI.name,
  admit: () => undefined,
  check: (schema, value) => checked(schema, value),
  bodyOf: (raw, required) => objectBody(raw, required),
  queryOf: () => undefined,
  input: (_req, _principal, params, _scope, body) => ({ params, body }),
};

const adapters = new WeakMap<SimRuntime, RouteAdapter<undefined, SimInput, unknown>>();
/** A cluster node's adapter also places requests: a phone's on its tenant's owner. */
function adapterOf(runtime: SimRuntime): RouteAdapter<undefined, SimInput, unknown> {
  if (!runtime.placement) return SIM_ADAPTER;
  let adapter = adapters.get(runtime);
  if (!adapter) {
    const { directory } = runtime;
    adapter = {
      ...SIM_ADAPTER,
      placement: runtime.placement,
      place: (_req, params) => placeOf(directory, params),
    };
    adapters.set(runtime, adapter);
  }
  return adapter;
}

/** The tenant of the phone or the tenant a simulator path names; undefined: here. */
function placeOf(directory: SimRuntime['directory'], params: Record<string, string>): number | undefined {
  if (params.deviceId !== undefined) return directory.device(params.deviceId)?.tenantId;
  if (params.tenantId === undefined || !/^\d+$/.test(params.tenantId)) return undefined;
  const tenantId = Number(params.tenantId);
  return directory.tenant(tenantId) ? tenantId : undefined;
}

function objectBody(body: unknown, required: boolean): object {
  if (body === undefined || body === null) {
    if (required) throw invalid('INVALID_BODY', 'A JSON object body is required');
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw invalid('INVALID_BODY', 'The body must be a JSON object');
  }
  return body;
}

function checked(schema: TSchema, value: unknown): void {
  const issue = firstIssue(schema, value);
  if (!issue) return;
  const field = issue.field.split('.')[0] ?? '';
  if (!field) throw invalid('INVALID_BODY', issue.message);
  throw invalid(`${issue.missing ? 'MISSING' : 'INVALID'}_${snake(field)}`, issue.message);
}

/** `callObserverId` → `CALL_OBSERVER_ID`. */
const snake = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
