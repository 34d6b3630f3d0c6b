import type { FastifyInstance } from 'fastify';
import { PACKAGE } from '../core/version.js';
import type { Runtime } from './runtime.js';

/** `/healthz`: the process is alive. `/readyz`: the database answers. `/version`: which release runs. */
export async function healthRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/version', async () => ({ name: PACKAGE.name, version: PACKAGE.version }));
  app.get('/readyz', async (_req, reply) => {
    const ok = await opts.runtime.db.ping();
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'database unreachable' });
  });
}
