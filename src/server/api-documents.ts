import type { FastifyInstance } from 'fastify';
import type { Runtime } from './runtime.js';

/**
 * The OpenAPI and AsyncAPI documents under /openapi/, generated from the schemas the routes
 * validate with. Open to all: they describe the APIs, not a tenant's data.
 */
export async function apiDocuments(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const { docs } = runtime;
  app.get('/openapi', async () => ({
    documents: docs.list().map((d) => ({ ...d, href: `/openapi/${d.name}.json` })),
  }));
  app.get<{ Params: { file: string } }>('/openapi/:file', async (req, reply) => {
    const name = /^([a-z0-9-]+)\.json$/.exec(req.params.file)?.[1];
    const doc = name ? docs.document(name) : undefined;
    if (!doc) return reply.code(404).send({ error: { code: 'NOT_FOUND', message: 'No such document' } });
    return reply.header('cache-control', 'no-cache').send(doc);
  });
}
