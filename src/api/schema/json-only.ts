/**
 * No cross-site writes. A web page can send a form or `text/plain` to any address without the
 * browser asking the server first (a CORS "simple request"); only such types reach a server
 * unasked. So every state-changing request (POST, PUT, PATCH, DELETE) must carry JSON, or no
 * content type at all when it has no body. Anything else is refused with 415 before the body is
 * read (after authentication), in the API's own error shape. A route that the specification lets
 * take another type (the contact-center token grant takes a form) names its types in
 * `config.mediaTypes`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

export const JSON_MEDIA_TYPE = 'application/json';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route may declare in its Fastify `config`. */
export interface MediaTypeConfig {
  /** The body types the route accepts besides none; default `application/json` only. */
  mediaTypes?: readonly string[];
}

export class UnsupportedMediaTypeError extends Error {
  readonly statusCode = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export const mediaTypeOf = (header: string): string => header.split(';', 1)[0]!.trim().toLowerCase();

/** Why a request may not change state as it is, or undefined when it may. */
export function mediaTypeRefusal(req: FastifyRequest): string | undefined {
  if (!WRITES.has(req.method)) return undefined;
  const header = req.headers['content-type'];
  if (header === undefined) {
    const hasBody =
      req.headers['transfer-encoding'] !== undefined ||
      (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    return hasBody ? 'A request body needs Content-Type: application/json.' : undefined;
  }
  const allowed = (req.routeOptions.config as MediaTypeConfig | undefined)?.mediaTypes ?? [JSON_MEDIA_TYPE];
  const type = mediaTypeOf(header);
  return allowed.includes(type)
    ? undefined
    : `Content-Type ${type || '(empty)'} is not accepted here; send ${allowed.join(' or ')}.`;
}

/**
 * Refuses state-changing requests that are not JSON (415) on every route of `app` registered
 * after this call. A route hook, only on routes that take a write method: reads pay nothing.
 */
export function requireJsonWrites(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (![route.method].flat().some((m) => WRITES.has(m))) return;
    route.onRequest = [refuseForeignMediaType, ...[route.onRequest ?? []].flat()];
  });
}

function refuseForeignMediaType(req: FastifyRequest, _reply: unknown, done: (err?: Error) => void): void {
  const refusal = mediaTypeRefusal(req);
  done(refusal === undefined ? undefined : new UnsupportedMediaTypeError(refusal));
}

/**
 * The JSON body parser of the voice and simulator APIs: Fastify's own (a body that names
 * `__proto__` or `constructor.prototype` is refused with 400), where an empty body with a JSON
 * type is no body, as many HTTP clients send bodyless POSTs.
 */
export function parseJsonOrEmpty(app: FastifyInstance): void {
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(JSON_MEDIA_TYPE);
  app.addContentTypeParser(JSON_MEDIA_TYPE, { parseAs: 'string' }, (req, body, done) =>
    String(body).trim() === '' ? done(null, undefined) : json(req, body as string, done),
  );
}
