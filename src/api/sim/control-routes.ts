import type { FastifyInstance } from 'fastify';
import { invalid, notFound } from '../../core/errors.js';
import type { Runtime } from '../../server/runtime.js';
import { intField, objectBody, oneOf, stringField } from './body.js';

const MAX_ADVANCE_MS = 30 * 86_400_000;

/** Reset, the state snapshot, the clock and text-message counting. */
export async function controlRoutes(app: FastifyInstance, { runtime }: { runtime: Runtime }) {
  const clock = () => ({ mode: runtime.clock.mode, now: runtime.clock.now() });

  app.post('/reset', async (_req, reply) => {
    await runtime.resetToDemo();
    return reply.code(204).send();
  });

  app.get('/state', async () => ({ clock: clock(), ...runtime.switch.snapshot() }));

  app.get('/clock', async () => clock());

  app.post('/clock/advance', async (req) => {
    const b = objectBody(req.body, true);
    const ms = intField(b, 'ms', 0, MAX_ADVANCE_MS, true)!;
    if (runtime.clock.mode !== 'virtual') {
      throw invalid('CLOCK_NOT_VIRTUAL', 'The clock can be advanced only in virtual mode (--clock virtual)');
    }
    runtime.clock.advance(ms);
    return clock();
  });

  app.post<{ Params: { tenantId: string } }>('/tenants/:tenantId/messages', async (req, reply) => {
    const tenantId = Number(req.params.tenantId);
    if (!/^\d{1,9}$/.test(req.params.tenantId) || !runtime.directory.tenant(tenantId)) {
      throw notFound('TENANT_NOT_FOUND', `No tenant ${req.params.tenantId}`);
    }
    const b = objectBody(req.body, true);
    const direction = oneOf(b, 'direction', ['in', 'out'] as const)!;
    const kind = oneOf(b, 'kind', ['sms', 'mms'] as const)!;
    stringField(b, 'from', { required: true, pattern: /^\+?[0-9]{2,20}$/ });
    stringField(b, 'to', { required: true, pattern: /^\+?[0-9]{2,20}$/ });
    await runtime.contactCenter.countTextMessage?.(tenantId, direction, kind);
    return reply.code(204).send();
  });
}
