import type { FastifyInstance } from 'fastify';
import type { VoiceRuntime } from './voice-runtime.js';
import { forwardedBy, registerRestLimits } from '../limits/index.js';
import { parseJsonOrEmpty, requireJsonWrites } from '../schema/json-only.js';
import { capBodies } from '../schema/bounds.js';
import { callResources } from './calls/call-resources.js';
import { directoryResources } from './directory/directory-resources.js';
import { enumResources } from './enums/enum-resources.js';
import { registerProblemHandlers } from './error-handling.js';
import { startFanout, voiceJournalRenderer } from './events/fanout.js';
import { subscriptionResources } from './events/subscription-resources.js';
import { SubscriptionIndex } from './events/subscriptions.js';
import { webhookResources } from './webhooks/webhook-resources.js';
import { WebhookRegistry, webhookSettings } from './webhooks/webhook-registry.js';
import { registerWebhooksDocument } from './webhooks/webhook-document.js';
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
export async function voiceApi(app: FastifyInstance, opts: { runtime: VoiceRuntime }) {
  const { runtime } = opts;
  runtime.docs.defineOpenApi(VOICE_OPENAPI);
  const continuity = await runtime.continuity;
  continuity.journal.addRenderer(voiceJournalRenderer(runtime.directory));
  const sockets = new VoiceSockets(
    new SubscriptionIndex(),
    runtime.directory,
    continuity.sessions,
    runtime.placement,
  );
  const stopFanout = startFanout(
    runtime.events,
    sockets.index,
    runtime.directory,
    runtime.telemetry.eventsSent,
    continuity.journal,
  );
  const webhooks = new WebhookRegistry(
    runtime.webhookStore,
    sockets.index,
    continuity.journal,
    runtime.clock,
    webhookSettings(runtime.config),
    app.log,
    runtime.membership,
    runtime.traffic,
  );
  await webhooks.load();
  // The demo world has no webhooks (and the reset clock drops their retry timers).
  runtime.onReset(() => webhooks.deleteAll());
  app.addHook('onClose', async () => {
    stopFanout();
    await webhooks.close();
    await continuity.close();
  });
  runtime.telemetry.offerGauge('voice_subscription_sets', {
    help: 'Subscription sets on open /api/ws sockets.',
    read: () => sockets.setCount(),
  });

  registerProblemHandlers(app);
  capBodies(app, runtime.config.bodyLimitBytes);
  // Requests are JSON (spec: Media); anything else is 415, even without a body.
  requireJsonWrites(app);
  app.removeContentTypeParser('text/plain');
  // "none required" bodies (e.g. POST of a subscription set) may come as an empty body with a
  // JSON content type, as many HTTP clients send them.
  parseJsonOrEmpty(app);
  // Authentication first: a slot is only ever taken by a verified principal (+ IP).
  registerBasicAuth(app, runtime.auth);
  registerRestLimits(app, {
    limiter: runtime.limits.requests,
    clientKey,
    ...forwardedBy(runtime.placement),
    sendBusy: (reply) =>
      reply
        .type(PROBLEM_JSON)
        .send(problem(503, 'BUSY', 'The server is busy; retry after the indicated delay.')),
  });
  registerEventSocket(app, runtime, sockets, continuity);
  registerVoiceEventsDocument(runtime.docs);
  registerWebhooksDocument(runtime.docs);
  registerResources(
    app,
    mergeByPath([
      ...navigationResources,
      ...enumResources,
      ...subscriptionResources(sockets),
      ...webhookResources(webhooks),
      ...statusResources(sockets),
      ...callResources,
      ...directoryResources,
      ...sendMessageResources,
      ...provisioningResources,
    ]),
    {
      runtime,
      principalOf,
      openapi: { document: VOICE_OPENAPI.name, problem: ProblemSchema },
    },
  );
}
