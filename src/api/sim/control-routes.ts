import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SimState } from '../../switch/types.js';
import { invalid, notFound } from '../../core/errors.js';
import { acrossCluster, STATE } from './cluster-state.js';
import type { SimRuntime } from './sim-runtime.js';
import { noContent, refusal, simRoute } from './sim-route.js';
import {
  type SimClock,
  SimClockAdvanceSchema,
  SimClockSchema,
  SimStateSchema,
  SimTextMessageSchema,
  TenantParamsSchema,
} from './sim-schemas.js';

/** Reset, the state snapshot, the clock and text-message counting. */
export async function controlRoutes(app: FastifyInstance, { runtime }: { runtime: SimRuntime }) {
  const clock = (): SimClock => ({ mode: runtime.clock.mode, now: runtime.clock.now() });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/reset',
    operationId: 'reset',
    summary: 'Back to the demo world',
    description:
      'Ends every call without events; restores provisioning with the same ids; empties call records, ' +
      'counters and lock-outs; signs the agents in, Ready; puts the virtual clock back to its start. ' +
      'Tokens, open sockets and their subscription sets stay; webhooks are deleted.',
    tag: 'control',
    responses: { '204': { description: 'Reset.' } },
    handler: noContent(() => runtime.resetToDemo()),
  });

  simRoute(app, runtime, {
    method: 'GET',
    url: '/state',
    operationId: 'getState',
    summary: 'Snapshot of everything live',
    description:
      'Devices (registration, calls), active calls, queues, park locations and the outside network.',
    tag: 'control',
    responses: { '200': { description: 'The snapshot.', schema: SimStateSchema } },
    handler: async (_input, req) => ({ clock: clock(), ...(await clusterState(runtime, req)) }),
  });

  simRoute(app, runtime, {
    method: 'GET',
    url: '/clock',
    operationId: 'getClock',
    summary: 'The switch clock',
    tag: 'control',
    responses: { '200': { description: 'Mode and time.', schema: SimClockSchema } },
    handler: async () => clock(),
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/clock/advance',
    operationId: 'advanceClock',
    summary: 'Move the virtual clock forward',
    description: 'Fires every timer that falls due, in order. Only with `--clock virtual`.',
    tag: 'control',
    body: SimClockAdvanceSchema,
    responses: {
      '200': { description: 'The clock after the move.', schema: SimClockSchema },
      '400': refusal(
        '`INVALID_BODY`, `MISSING_MS`, `INVALID_MS`; `CLOCK_NOT_VIRTUAL` when the server runs the real clock.',
      ),
    },
    handler: async ({ body }) => {
      if (runtime.clock.mode !== 'virtual') {
        throw invalid(
          'CLOCK_NOT_VIRTUAL',
          'The clock can be advanced only in virtual mode (--clock virtual)',
        );
      }
      if (runtime.advanceClock) await runtime.advanceClock(body.ms);
      else runtime.clock.advance(body.ms);
      return clock();
    },
  });

  simRoute(app, runtime, {
    method: 'POST',
    url: '/tenants/:tenantId/messages',
    operationId: 'countTextMessage',
    summary: 'Count a text message',
    description: "Counts an SMS or MMS in the tenant's contact-center text counters.",
    tag: 'control',
    params: TenantParamsSchema,
    body: SimTextMessageSchema,
    responses: {
      '204': { description: 'Counted.' },
      '400': refusal(
        '`INVALID_TENANT_ID`, `INVALID_BODY`, `MISSING_<FIELD>` or `INVALID_<FIELD>` ' +
          '(`DIRECTION`, `KIND`, `FROM`, `TO`).',
      ),
      '404': refusal('`TENANT_NOT_FOUND`.'),
    },
    handler: async ({ params, body }, _req, reply) => {
      const tenantId = Number(params.tenantId);
      if (!runtime.directory.tenant(tenantId)) {
        throw notFound('TENANT_NOT_FOUND', `No tenant ${params.tenantId}`);
      }
      await runtime.contactCenter.countTextMessage?.(tenantId, body.direction, body.kind);
      return reply.code(204).send();
    },
  });
}

/** The switch's snapshot; in a cluster, of every node (cluster-state.ts). */
export function clusterState(runtime: SimRuntime, req: FastifyRequest): Promise<SimState> {
  return acrossCluster(runtime.placement, req, runtime.switch.snapshot(), STATE);
}
