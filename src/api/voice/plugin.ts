import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../server/runtime.js';
import { limitsFor, registerRestLimits } from '../limits/index.js';
import { enumResources } from './enums/enum-resources.js';
import { registerProblemHandlers } from './error-handling.js';
import { problem } from './hal/problem.js';
import { PROBLEM_JSON } from './hal/problem.js';
import { registerResources } from './hal/resource.js';
import { navigationResources } from './navigation/navigation-resources.js';
import { clientKey, principalOf, registerBasicAuth } from './request-auth.js';

/** The voice platform API under /api: HAL REST and the event WebSocket /api/ws. */
export async function voiceApi(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { runtime } = opts;
  registerProblemHandlers(app);
  registerRestLimits(app, {
    limits: limitsFor(runtime),
    clientKey,
    sendBusy: (reply) =>
      reply
        .type(PROBLEM_JSON)
        .send(problem(503, 'BUSY', 'The server is busy; retry after the indicated delay.')),
  });
  registerBasicAuth(app, runtime);
  registerResources(app, [...navigationResources, ...enumResources], { runtime, principalOf });
}
