import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isDomainError, UNAVAILABLE_RETRY_S } from '../../core/errors.js';
import { LockedOutError } from '../auth/index.js';
import { isBodyTooLarge } from '../limits/index.js';

/** A contact-center answer other than 200, in the spec's error shapes. */
export class CcHttpError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 500,
    readonly reason: string,
  ) {
    super(reason);
  }
}

export const unauthorized = () => new CcHttpError(401, 'Unauthorized');
export const forbiddenError = () => new CcHttpError(403, 'Forbidden');
export const notFoundError = () => new CcHttpError(404, 'Not Found');
export const badRequest = (reason: string) => new CcHttpError(400, reason);

/**
 * Requests whose 400 body carries `success: true` (DESIGN §3.7): call listing, single call, call
 * search and the startSuppression request. A handler marks its request before it validates.
 */
const quirky = new WeakSet<FastifyRequest>();
export function useSuccessTrue400(req: FastifyRequest): void {
  quirky.add(req);
}

export function sendCcError(req: FastifyRequest, reply: FastifyReply, status: number, reason: string) {
  if (status === 401) return reply.code(401).send({ status: 401, reason: 'Unauthorized' });
  if (status === 500) return reply.code(500).send({ success: true, reason: 'Internal Server Error' });
  const success = status === 400 && quirky.has(req);
  return reply.code(status).send({ success, reason });
}

const KIND_STATUS = {
  invalid: 400,
  notFound: 404,
  forbidden: 403,
  unauthorized: 401,
  conflict: 400,
} as const;

/** The plugin's error handler: typed errors to their status, anything else to the 500 body. */
export function ccErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  if (err instanceof CcHttpError) return sendCcError(req, reply, err.status, err.reason);
  if (err instanceof LockedOutError) {
    reply.header('retry-after', String(err.retryAfterSeconds));
    return sendCcError(req, reply, 403, 'Locked Out');
  }
  if (isDomainError(err) && err.kind === 'unavailable') {
    reply.header('retry-after', String(UNAVAILABLE_RETRY_S));
    return reply.code(503).send({ success: false, reason: 'Service Unavailable' });
  }
  if (isDomainError(err)) {
    const status = KIND_STATUS[err.kind as keyof typeof KIND_STATUS];
    // 404 and 403 have fixed reasons in this API (NotFoundBody, ForbiddenBody).
    const fixed = status === 404 ? 'Not Found' : status === 403 ? 'Forbidden' : undefined;
    if (status) return sendCcError(req, reply, status, fixed ?? err.message);
  }
  if (isBodyTooLarge(err)) return reply.code(413).send({ success: false, reason: 'Payload Too Large' });
  if (err.statusCode === 415)
    return reply.code(415).send({ success: false, reason: 'Unsupported Media Type' });
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return sendCcError(req, reply, 400, err.message);
  }
  req.log.error({ err }, 'contact-center request failed');
  return sendCcError(req, reply, 500, 'Internal Server Error');
}
