import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What a client's own request id may be: up to 128 of the characters ids are usually made of. */
const CLIENT_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * Fastify's `genReqId`: the client's `X-Request-Id` when it is a plausible id, else a new UUID.
 * A longer or stranger value is not echoed or logged (it could forge log lines or headers).
 */
export function requestIdOf(req: IncomingMessage): string {
  const sent = req.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_ID.test(sent) ? sent : randomUUID();
}
