import type { FastifyInstance, FastifyRequest } from 'fastify';
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
    return reply.header('cache-control', 'no-cache').send(withListeningAddress(doc, app, req));
  });
}

/**
 * An AsyncAPI document's socket servers (`ws`) name the address this server listens on (`ws`, or
 * `wss` with TLS), so a client generated from it connects here. A server listening on every
 * interface (0.0.0.0, ::) is named by the host the client used to fetch the document. Other
 * servers (a webhook's receiver) are not this one and stay as they are.
 */
function withListeningAddress(doc: Record<string, unknown>, app: FastifyInstance, req: FastifyRequest) {
  const servers = doc.servers as Record<string, Record<string, unknown>> | undefined;
  if (typeof doc.asyncapi !== 'string' || !servers) return doc;
  const addr = app.server.address();
  let host = req.host;
  if (addr && typeof addr === 'object' && addr.address !== '0.0.0.0' && addr.address !== '::') {
    host = addr.family === 'IPv6' ? `[${addr.address}]:${addr.port}` : `${addr.address}:${addr.port}`;
  }
  const protocol = req.protocol === 'https' ? 'wss' : 'ws';
  return {
    ...doc,
    servers: Object.fromEntries(
      Object.entries(servers).map(([name, s]) => [
        name,
        s.protocol === 'ws' || s.protocol === 'wss'
          ? { ...s, host, protocol, description: 'This Switchboard server (the address it listens on).' }
          : s,
      ]),
    ),
  };
}
