// Bare references for the benchmarks (docs/decisions.md §1.12), run in their own process:
//   /hello  — Fastify hello-world
//   /cached — a minimal route with cached Basic auth and a 1 KB JSON body

import { createHash } from 'node:crypto';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const body = {
  items: Array.from({ length: 12 }, (_, i) => ({
    callId: String(1e15 + i),
    from: '101',
    to: '102',
    state: 'connected',
  })),
};
const cache = new Map<string, boolean>();
app.get('/hello', async () => ({ hello: 'world' }));
app.get('/cached', async (req, reply) => {
  const h = req.headers.authorization ?? '';
  const key = createHash('sha256').update(h).digest('base64url');
  if (!cache.get(key)) {
    if (h !== `Basic ${Buffer.from('101@1001:1234').toString('base64')}`) return reply.code(401).send();
    cache.set(key, true);
  }
  return body;
});
await app.listen({ port: Number(process.argv[2] ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${(app.server.address() as { port: number }).port}\n`);
// A signal ends the process normally, so `node --cpu-prof` writes its profile.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
