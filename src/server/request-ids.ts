import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

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

/**
 * Every answer names its request in `X-Request-Id`. Set in the first `onRequest` hook, where
 * every route (API routes already run hooks there) pays one header assignment; an answer that
 * an API hook or handler sends later, an error included, keeps the header.
 */
export function echoRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    done();
  });
}
