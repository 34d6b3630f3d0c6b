import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { authenticatorFor } from '../api/auth/index.js';
import { ccsApi } from '../api/ccs/plugin.js';
import { clusterRoute } from '../api/cluster/plugin.js';
import { simApi } from '../api/sim/plugin.js';
import { voiceApi } from '../api/voice/plugin.js';
import { REQUEST_PRINCIPAL } from '../api/auth/request-principal.js';
import { apiDocuments } from './api-documents.js';
import { ccRuntime, simRuntime, voiceRuntime } from './api-runtimes.js';
import { registerCors } from './cors.js';
import { guardFrontDoor } from './front-door.js';
import { drainRefusedBodies } from './refused-bodies.js';
import { healthRoutes } from './health.js';
import { metricsRoute, ServerMetrics } from './metrics.js';
import { requestIdOf } from './request-ids.js';
import { RequestLogController, requestLoggerFactory } from './request-logger.js';
import { closeConnectionsOnShutdown } from './shutdown.js';
import type { Runtime } from './runtime.js';
import { webPages } from './static-pages.js';
import { tlsOptions } from './tls.js';
import { installWebSockets } from '../api/transport/websockets.js';

/** The URL roots of the three APIs, whose routes the OpenAPI documents describe. */
export const DOCUMENTED_PREFIXES = ['/api', '/6/v2', '/sim/v1'];

/** Whether a route belongs to one of the APIs (`/api` itself included, `/apix` not). */
export const isApiRoute = (url: string) =>
  DOCUMENTED_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));

/** Builds the HTTP(S) server with every API mounted. Does not listen. */
export async function buildApp(runtime: Runtime): Promise<FastifyInstance> {
  const { config } = runtime;
  const metrics = new ServerMetrics(runtime);
  const app = Fastify({
    loggerInstance: runtime.log as FastifyBaseLogger,
    childLoggerFactory: requestLoggerFactory,
    logController: new RequestLogController(runtime.log, metrics.requests),
    ...(config.tls ? { https: tlsOptions(config.tls.cert, config.tls.key) } : {}),
    bodyLimit: config.bodyLimitBytes,
    requestTimeout: config.bodyTimeoutMs,
    // A client's own X-Request-Id (when plausible) names its request in the logs and the answer.
    requestIdHeader: false,
    genReqId: requestIdOf,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    exposeHeadRoutes: true,
    routerOptions: { ignoreTrailingSlash: true },
  }) as unknown as FastifyInstance;
  closeConnectionsOnShutdown(app, Boolean(config.tls));
  // Every request has the slot for its authenticated principal from the start: set later on an
  // undecorated request, it would add a property (and a property store) to each request object.
  app.decorateRequest(REQUEST_PRINCIPAL, undefined);
  // One root hook: the request id, nosniff and HSTS on every answer.
  guardFrontDoor(app, config);
  drainRefusedBodies(app);
  await registerCors(app, config.corsOrigins);
  const traffic = runtime.traffic;
  if (traffic) {
    app.addHook('onSend', (req, reply, payload, done) => {
      // An empty answer (`reply.send()`) has no payload; streams are the static files.
      if (
        payload === undefined ||
        payload === null ||
        typeof payload === 'string' ||
        Buffer.isBuffer(payload)
      ) {
        traffic.response({
          method: req.method,
          route: req.routeOptions.url,
          url: req.url,
          status: reply.statusCode,
          contentType: reply.getHeader('content-type') as string | undefined,
          headers: reply.getHeaders(),
          body: payload?.toString() ?? '',
        });
      }
      done(null, payload);
    });
  }
  // Every API route is recorded, so a test can prove the documents describe all of them.
  app.addHook('onRoute', (route) => {
    const config = route.config as { undocumented?: boolean } | undefined;
    if (config?.undocumented || !isApiRoute(route.url)) return;
    if (route.url.includes('*')) return;
    for (const method of [route.method].flat()) {
      if (method !== 'HEAD') runtime.docs.noteRoute(method, route.url);
    }
  });
  installWebSockets(app, {
    maxPayload: config.bodyLimitBytes,
    // Graceful shutdown: every open socket is told the server is going away.
    onClose: (wss) => {
      for (const client of wss.clients) client.close(1001, 'server shutting down');
    },
  });
  metrics.watchSockets(app);
  await app.register(healthRoutes, { runtime });
  await app.register(metricsRoute, { runtime, metrics });
  await app.register(clusterRoute, { auth: authenticatorFor(runtime), state: () => runtime.node.state() });
  await app.register(voiceApi, { prefix: '/api', runtime: voiceRuntime(runtime) });
  await app.register(ccsApi, { prefix: '/6/v2', runtime: ccRuntime(runtime) });
  if (config.sim) await app.register(simApi, { prefix: '/sim/v1', runtime: simRuntime(runtime) });
  await app.register(webPages, { runtime });
  await app.register(apiDocuments, { runtime });
  return app;
}
