import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { describe } from '../store/database.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { credentialLines, warnAboutDemoCredentials } from './demo-credentials.js';
import { startFailover } from './failover.js';
import { createRuntime, databaseTarget, type Runtime } from './runtime.js';
// Also for a server embedded in another process (the CLI imports it first thing).
import './tick-object-map.js';
import type { TrafficObserver } from '../api/transport/traffic.js';

export interface Server {
  app: FastifyInstance;
  runtime: Runtime;
  /** Base URLs, e.g. http://127.0.0.1:8080 and ws://127.0.0.1:8080 */
  httpUrl: string;
  wsUrl: string;
  close(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'switchboard' } });
}

/** Starts a server and listens. Used by the CLI and by API tests. */
export async function startServer(
  config: Config,
  log: Logger = createLogger(config),
  opts: { traffic?: TrafficObserver } = {},
): Promise<Server> {
  const runtime = await createRuntime(config, log);
  if (opts.traffic) runtime.traffic = opts.traffic;
  let app: FastifyInstance;
  let stopFailover = () => {};
  try {
    app = await buildApp(runtime);
    // After the APIs subscribed (webhooks hear the `end` of lost calls), before anyone is served.
    stopFailover = await startFailover(runtime);
    await app.listen({ port: config.port, host: config.host });
  } catch (e) {
    await runtime.close().catch(() => {});
    throw e;
  }
  warnAboutDemoCredentials(config, log);
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const scheme = config.tls ? 'https' : 'http';
  let closing: Promise<void> | undefined;
  return {
    app,
    runtime,
    httpUrl: `${scheme}://${host}:${port}`,
    wsUrl: `${config.tls ? 'wss' : 'ws'}://${host}:${port}`,
    close() {
      closing ??= (async () => {
        stopFailover();
        await app.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

export function banner(server: Server): string {
  const { httpUrl, wsUrl, runtime } = server;
  const c = runtime.config;
  const lines = [
    `Switchboard listening on ${httpUrl}`,
    `  database            ${describe(databaseTarget(c))}`,
    `  clock               ${c.clock}`,
    `  voice API           ${httpUrl}/api`,
    `  voice events        ${wsUrl}/api/ws`,
    `  contact-center API  ${httpUrl}/6/v2/api/`,
    `  contact-center sock ${wsUrl}/6/v2/sock`,
    c.sim
      ? `  simulator           ${httpUrl}/sim/v1  (console: ${httpUrl}/console/)`
      : '  simulator           off',
    `  API explorer        ${httpUrl}/api/browser/browser.html`,
    `  API documents       ${httpUrl}/docs/  (OpenAPI and AsyncAPI: ${httpUrl}/openapi)`,
    `  health              ${httpUrl}/healthz  ${httpUrl}/readyz`,
    '',
    'Demo credentials:',
    ...credentialLines(c),
  ];
  return lines.join('\n');
}
