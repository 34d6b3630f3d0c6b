import type { FastifyInstance } from 'fastify';
import { isBodyTooLarge } from '../api/limits/fastify-limits.js';

/**
 * A body refused as too large (413) on its announced length is answered before it arrives.
 * Fastify then closes the connection, and the close with the body's rest still unread resets it
 * (TCP RST): a client still sending, a balancer streaming the upload among them, has its write
 * fail and may lose the 413 it had not read yet (RFC 9112 § 9.6): it hears a broken connection,
 * a balancer answers 502. So a refused body of announced length up to DRAIN_MAX_BYTES keeps its
 * connection: Node reads its rest and drops it (bounded in time by the body time-out), then the
 * connection serves the next request. A larger or unannounced one still closes the connection.
 */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;

export function drainRefusedBodies(app: FastifyInstance): void {
  app.addHook('onError', (req, reply, err, done) => {
    const announced = Number(req.headers['content-length']);
    if (isBodyTooLarge(err) && !req.raw.complete && announced <= DRAIN_MAX_BYTES)
      reply.removeHeader('connection');
    done();
  });
}
