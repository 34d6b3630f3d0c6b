import type { FastifyInstance } from 'fastify';
import { PACKAGE } from '../core/version.js';
import type { Runtime } from './runtime.js';

/**
 * `/healthz`: the process is alive. `/readyz`: the database answers, and the node is not draining
 * (a cluster node leaving: a load balancer stops sending it clients). `/version`: which release runs.
 */
export async function healthRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/version', async () => ({ name: PACKAGE.name, version: PACKAGE.version }));
  app.get('/readyz', async (_req, reply) => {
    if (opts.runtime.node.draining()) return reply.code(503).send({ status: 'draining' });
    const ok = await opts.runtime.db.ping();
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'database unreachable' });
  });
}
