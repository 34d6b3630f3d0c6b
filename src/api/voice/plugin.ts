import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../server/runtime.js';
import { limitsFor, registerRestLimits } from '../limits/index.js';
import { callResources } from './calls/call-resources.js';
import { directoryResources } from './directory/directory-resources.js';
import { enumResources } from './enums/enum-resources.js';
import { registerProblemHandlers } from './error-handling.js';
import { startFanout } from './events/fanout.js';
import { subscriptionResources } from './events/subscription-resources.js';
import { SubscriptionIndex } from './events/subscriptions.js';
import { VoiceSockets } from './events/voice-sockets.js';
import { registerVoiceEventsDocument } from './events/voice-events-document.js';
import { registerEventSocket } from './events/websocket-route.js';
import { PROBLEM_JSON, problem } from './hal/problem.js';
import { ProblemSchema } from './hal/problem-schema.js';
import { registerResources } from './hal/resource.js';
import { sendMessageResources } from './messages/send-message-resources.js';
import { VOICE_OPENAPI } from './openapi-info.js';
import { navigationResources } from './navigation/navigation-resources.js';
import { provisioningResources } from './provisioning/index.js';
import { mergeByPath } from './provisioning/merge.js';
import { clientKey, principalOf, registerBasicAuth } from './request-auth.js';
import { statusResources } from './status/status-resources.js';

/** The voice platform API under /api: HAL REST and the event WebSocket /api/ws. */
export async function voiceApi(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { runtime } = opts;
  runtime.docs.defineOpenApi(VOICE_OPENAPI);
  const sockets = new VoiceSockets(new SubscriptionIndex());
  const stopFanout = startFanout(runtime.bus, sockets.index, runtime.directory);
  app.addHook('onClose', async () => stopFanout());

  registerProblemHandlers(app);
  // Requests are JSON (spec: Media); anything else is 415.
  app.removeContentTypeParser('text/plain');
  // "none required" bodies (e.g. POST of a subscription set) may come as an empty body with a
  // JSON content type, as many HTTP clients send them.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) =>
    body.length === 0 ? done(null, undefined) : json(req, body as string, done),
  );
  // Authentication first: a slot is only ever taken by a verified principal (+ IP).
  registerBasicAuth(app, runtime);
  registerRestLimits(app, {
    limiter: limitsFor(runtime).requests,
    clientKey,
    sendBusy: (reply) =>
      reply
        .type(PROBLEM_JSON)
        .send(problem(503, 'BUSY', 'The server is busy; retry after the indicated delay.')),
  });
  registerEventSocket(app, runtime, sockets);
  registerVoiceEventsDocument(runtime.docs);
  registerResources(
    app,
    mergeByPath([
      ...navigationResources,
      ...enumResources,
      ...subscriptionResources(sockets),
      ...statusResources(sockets),
      ...callResources,
      ...directoryResources,
      ...sendMessageResources,
      ...provisioningResources,
    ]),
    {
      runtime,
      principalOf,
      openapi: { document: VOICE_OPENAPI.name, prefix: '/api', problem: ProblemSchema },
    },
  );
}
