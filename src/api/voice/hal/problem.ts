import type { FastifyReply } from 'fastify';
import {
  DomainError,
  type ErrorKind,
  type ErrorParameter,
  UNAVAILABLE_RETRY_S,
} from '../../../core/errors.js';
import { LockedOutError } from '../../auth/index.js';

/** RFC 9457 problem details of the voice API (DESIGN §3.2). */
export const PROBLEM_JSON = 'application/problem+json';

const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  locked: 403,
  notFound: 404,
  conflict: 409,
  unavailable: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  426: 'Upgrade Required',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errorCode: string;
  parameters: ErrorParameter[];
}

export function problem(
  status: number,
  errorCode: string,
  detail: string,
  parameters: ErrorParameter[] = [],
): Problem {
  return {
    type: `urn:switchboard:problem:${errorCode}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    errorCode,
    parameters,
  };
}

export function problemOf(e: DomainError): Problem {
  return problem(STATUS[e.kind], e.code, e.message, e.parameters);
}

/** Sends a problem with the headers its status requires. */
export function sendProblem(
  reply: FastifyReply,
  p: Problem,
  extraHeaders: Record<string, string> = {},
): FastifyReply {
  if (p.status === 401) reply.header('www-authenticate', 'Basic realm="Switchboard", charset="UTF-8"');
  for (const [k, v] of Object.entries(extraHeaders)) reply.header(k, v);
  return reply.code(p.status).type(PROBLEM_JSON).send(p);
}

export function sendDomainError(reply: FastifyReply, e: DomainError): FastifyReply {
  const headers: Record<string, string> = {};
  if (e instanceof LockedOutError) headers['retry-after'] = String(e.retryAfterSeconds);
  else if (e.kind === 'unavailable') headers['retry-after'] = String(UNAVAILABLE_RETRY_S);
  return sendProblem(reply, problemOf(e), headers);
}

export { DomainError };
