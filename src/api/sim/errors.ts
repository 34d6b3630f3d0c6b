import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { DomainError, type ErrorKind, UNAVAILABLE_RETRY_S } from '../../core/errors.js';
import { LockedOutError } from '../auth/index.js';

/** Status of each domain error kind in the simulator API. */
const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  notFound: 404,
  conflict: 409,
  locked: 403,
  unavailable: 503,
};

export const WWW_AUTHENTICATE = 'Basic realm="Switchboard simulator", charset="UTF-8"';

export function sendError(reply: FastifyReply, status: number, code: string, message: string): FastifyReply {
  return reply.code(status).type('application/json').send({ error: { code, message } });
}

export function sendDomainError(reply: FastifyReply, e: DomainError): FastifyReply {
  if (e.kind === 'unauthorized') reply.header('www-authenticate', WWW_AUTHENTICATE);
  if (e instanceof LockedOutError) reply.header('retry-after', String(e.retryAfterSeconds));
  else if (e.kind === 'unavailable') reply.header('retry-after', String(UNAVAILABLE_RETRY_S));
  return sendError(reply, STATUS[e.kind], e.code, e.message);
}

/** Every failure of the simulator API leaves as `{error: {code, message}}`. */
export function registerSimErrors(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof DomainError) return sendDomainError(reply, err);
    const status = err.statusCode ?? 500;
    if (status === 413) return sendError(reply, 413, 'BODY_TOO_LARGE', 'The request body is too large');
    if (status === 415) return sendError(reply, 415, 'UNSUPPORTED_MEDIA_TYPE', err.message);
    if (status >= 400 && status < 500) return sendError(reply, status, 'INVALID_BODY', err.message);
    req.log.error({ err }, 'simulator request failed');
    return sendError(reply, 500, 'INTERNAL_ERROR', 'The simulator failed to handle the request');
  });
  app.setNotFoundHandler((req, reply) =>
    sendError(reply, 404, 'NOT_FOUND', `No simulator resource at ${req.method} ${req.url.split('?')[0]}`),
  );
}
