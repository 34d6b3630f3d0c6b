import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../core/errors.js';
import { isBodyTooLarge } from '../limits/index.js';
import { problem, sendDomainError, sendProblem } from './hal/problem.js';

/** Every failure of the voice API leaves as problem+json (docs/decisions.md §1.2). */
export function registerProblemHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err, req, reply) => {
    if (err instanceof DomainError) return sendDomainError(reply, err);
    if (isBodyTooLarge(err))
      return sendProblem(reply, problem(413, 'BODY_TOO_LARGE', 'The request body is too large.'));
    const e = err as { statusCode?: number; code?: string; message?: string };
    const status = e.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      const code =
        status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : status === 400 ? 'INVALID_BODY' : 'BAD_REQUEST';
      return sendProblem(reply, problem(status, code, e.message ?? 'Bad request.'));
    }
    req.log.error({ err }, 'voice API request failed');
    return sendProblem(reply, problem(500, 'INTERNAL_ERROR', 'The server failed to handle the request.'));
  });
  app.setNotFoundHandler((req, reply) =>
    sendProblem(reply, problem(404, 'NOT_FOUND', `No resource at ${req.url.split('?')[0]}.`)),
  );
}
