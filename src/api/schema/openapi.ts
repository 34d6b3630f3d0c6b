import { type TObject, type TSchema, Type } from '@sinclair/typebox';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface ResponseDoc {
  description: string;
  /** The body's schema; absent for an empty body. */
  schema?: TSchema;
  /** Defaults to the document's `defaultContentType`. */
  contentType?: string;
  /**
   * The body may also be empty (some requests of the operation answer no body). Rendered as
   * `x-empty-body-allowed: true` and stated in the description.
   */
  emptyAllowed?: boolean;
  /** `required`: the server sends the header with every answer of this status. */
  headers?: Record<string, HeaderDoc>;
}

export interface HeaderDoc {
  description: string;
  schema: TSchema;
  required?: boolean;
}

export const EMPTY_BODY_ALLOWED = 'x-empty-body-allowed';

/**
 * One documented operation. The same TypeBox objects validate the request in the route that
 * registers it, so the document cannot drift from the code.
 */
export interface OperationDoc {
  method: HttpMethod;
  /** Full path in Fastify syntax (`/api/v1/calls/:callObserverId`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Overrides the document's default security (`[]` for an open operation). */
  security?: Record<string, string[]>[];
  /** Path parameters; each `:name` in the path not described here is documented as a string. */
  params?: TObject;
  query?: TObject;
  body?: TSchema;
  bodyRequired?: boolean;
  /** Defaults to `application/json`; several types when the operation accepts several. */
  bodyContentTypes?: string[];
  responses: Record<string, ResponseDoc>;
}

export interface ApiDocumentInfo {
  /** The file name under /openapi/ (`voice` → /openapi/voice.json). */
  name: string;
  title: string;
  version: string;
  description: string;
  defaultContentType: string;
  securitySchemes: Record<string, unknown>;
  security: Record<string, string[]>[];
  tags: { name: string; description: string }[];
  /**
   * The answer to a request under the API's prefix that matches no route, rendered as
   * `components.responses.NotFound`.
   */
  notFound: ResponseDoc;
  /**
   * Real answers by operationId and status (recorded from the demo world by
   * scripts/record-examples.ts), shown as each response's `example`.
   */
  examples?: Record<string, Record<string, unknown>>;
}

/** A schema with a `$id` is a named component: documented once and referenced everywhere. */
const componentName = (s: TSchema): string | undefined =>
  typeof s.$id === 'string' && /^[A-Za-z0-9_.-]+$/.test(s.$id) ? s.$id : undefined;

export function openApiPath(fastifyPath: string): string {
  return fastifyPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

export function renderOpenApi(info: ApiDocumentInfo, ops: readonly OperationDoc[]): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  const ref = (schema: TSchema): unknown => hoist(schema, components);
  const paths: Record<string, Record<string, unknown>> = {};
  const sorted = [...ops].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const op of sorted) {
    const path = openApiPath(op.path);
    const item = (paths[path] ??= {});
    item[op.method.toLowerCase()] = renderOperation(info, op, ref);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This Switchboard server' }],
    tags: info.tags,
    security: info.security,
    paths,
    components: {
      securitySchemes: info.securitySchemes,
      responses: { NotFound: renderResponse(info, info.notFound, ref) },
      schemas: sortKeys(components),
    },
  };
}

function renderOperation(info: ApiDocumentInfo, op: OperationDoc, ref: (s: TSchema) => unknown) {
  const parameters: unknown[] = [];
  const pathNames = [...op.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);
  for (const name of pathNames) {
    const schema: TSchema = op.params?.properties[name] ?? Type.String();
    parameters.push({
      name,
      in: 'path',
      required: true,
      ...describe(schema),
      schema: ref(plain(schema)),
    });
  }
  for (const [name, schema] of Object.entries(op.query?.properties ?? {})) {
    parameters.push({
      name,
      in: 'query',
      required: op.query?.required?.includes(name) ?? false,
      ...describe(schema),
      schema: ref(plain(schema)),
    });
  }
  const out: Record<string, unknown> = {
    operationId: op.operationId,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: op.tags,
    ...(op.security ? { security: op.security } : {}),
    ...(parameters.length ? { parameters } : {}),
  };
  if (op.body) {
    const types = op.bodyContentTypes ?? ['application/json'];
    out.requestBody = {
      required: op.bodyRequired ?? true,
      content: Object.fromEntries(types.map((t) => [t, { schema: ref(op.body!) }])),
    };
  }
  const examples = info.examples?.[op.operationId];
  out.responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      renderResponse(info, r, ref, examples?.[status]),
    ]),
  );
  return out;
}

function renderResponse(
  info: ApiDocumentInfo,
  r: ResponseDoc,
  ref: (s: TSchema) => unknown,
  example?: unknown,
) {
  const empty = r.emptyAllowed && r.schema;
  return {
    description: empty
      ? `${r.description} An empty body is also valid (x-empty-body-allowed).`
      : r.description,
    ...(r.headers
      ? {
          headers: Object.fromEntries(
            Object.entries(r.headers).map(([h, d]) => [
              h,
              {
                description: d.description,
                ...(d.required ? { required: true } : {}),
                schema: ref(d.schema),
              },
            ]),
          ),
        }
      : {}),
    ...(r.schema
      ? {
          content: {
            [r.contentType ?? info.defaultContentType]: {
              schema: ref(r.schema),
              ...(example !== undefined ? { example } : {}),
            },
          },
        }
      : {}),
    ...(empty ? { [EMPTY_BODY_ALLOWED]: true } : {}),
  };
}

const describe = (s: TSchema) => (typeof s.description === 'string' ? { description: s.description } : {});

/** The schema without TypeBox's `Optional` marker and description, for a parameter's `schema`. */
function plain(s: TSchema): TSchema {
  const { description: _d, ...rest } = s;
  return rest as TSchema;
}

/** HTTP Basic as a document's one security scheme, required by every operation (voice, simulator). */
export const basicSecurity = (
  description: string,
): Pick<ApiDocumentInfo, 'securitySchemes' | 'security'> => ({
  securitySchemes: { basic: { type: 'http', scheme: 'basic', description } },
  security: [{ basic: [] }],
});

/** Deep copy where every schema with a `$id` goes to components once and becomes a `$ref`. */
export function hoist(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => hoist(s, components));
  if (!schema || typeof schema !== 'object') return schema;
  const s = schema as TSchema;
  const name = componentName(s);
  const copy = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === '$id') continue;
      out[k] =
        k === 'properties' || k === 'patternProperties' || k === '$defs'
          ? mapValues(v, components)
          : hoist(v, components);
    }
    return out;
  };
  if (!name) return copy();
  if (!(name in components)) {
    components[name] = {};
    components[name] = copy();
  }
  return { $ref: `#/components/schemas/${name}` };
}

function mapValues(v: unknown, components: Record<string, unknown>): unknown {
  if (!v || typeof v !== 'object') return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, hoist(x, components)]));
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}
