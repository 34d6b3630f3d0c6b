import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { type DatabaseTarget, describe } from '../store/database.js';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { checkDemoPasswords, credentialLines, warnAboutDemoCredentials } from './demo-credentials.js';
import { startFailover } from './failover.js';
import { type ClusterParts, createRuntime, databaseTarget, type Runtime } from './runtime.js';
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

/**
 * Parts composed around a server's runtime by whoever starts it (a cluster node's forwarding,
 * directory sync and shared clock; docs/cluster.md): made once the runtime exists and before the
 * app is built, attached to the app before it listens, closed first when the server closes.
 */
export interface ServerExtension {
  attach?(app: FastifyInstance): void | Promise<void>;
  close?(): Promise<void>;
}

export function createLogger(config: Config): Logger {
  return pino({ level: config.logLevel, base: { service: 'switchboard' } });
}

/** Starts a server and listens. Used by the CLI and by API tests. */
export async function startServer(
  config: Config,
  log: Logger = createLogger(config),
  opts: {
    traffic?: TrafficObserver;
    /** The database, when not the one the config names (a PostgreSQL schema of its own: tests). */
    target?: DatabaseTarget;
    extend?: (runtime: Runtime) => ServerExtension | Promise<ServerExtension>;
    /** A cluster node's parts fixed from outside (tests, benchmarks); `--nats` builds its own. */
    cluster?: ClusterParts;
    /** A node of a cluster whose ownership the caller fixes (shares the database as nodes do). */
    standIn?: boolean;
  } = {},
): Promise<Server> {
  checkDemoPasswords(config);
  const runtime = await createRuntime(
    config,
    log,
    opts.target,
    opts.cluster,
    opts.standIn ?? opts.cluster !== undefined,
  );
  if (opts.traffic) runtime.traffic = opts.traffic;
  let app: FastifyInstance | undefined;
  let extension: ServerExtension = {};
  let stopFailover = () => {};
  let port: number;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const scheme = config.tls ? 'https' : 'http';
  try {
    // A cluster node's links to the others (forwarding, directory sync, one world), unless the
    // caller composes its own.
    const extend = opts.extend ?? (runtime.cluster ? clusterLinks : undefined);
    if (extend) extension = await extend(runtime);
    app = await buildApp(runtime);
    await extension.attach?.(app);
    // What a lost node left: taken over now (standalone, before anyone is served; the APIs and
    // webhooks hear the `end` of its calls), or on each tenant the membership gains (cluster).
    stopFailover = await startFailover(runtime);
    await app.listen({ port: config.port, host: config.host });
    const addr = app.server.address();
    port = typeof addr === 'object' && addr ? addr.port : config.port;
    // A cluster node takes its tenants once every part listens for ownership changes.
    await runtime.node.start(`${scheme}://${host}:${port}`);
  } catch (e) {
    stopFailover();
    await extension.close?.().catch(() => {});
    await app?.close().catch(() => {});
    await runtime.close().catch(() => {});
    throw e;
  }
  warnAboutDemoCredentials(config, log);
  let closing: Promise<void> | undefined;
  const started = app;
  return {
    app: started,
    runtime,
    httpUrl: `${scheme}://${host}:${port}`,
    wsUrl: `${config.tls ? 'wss' : 'ws'}://${host}:${port}`,
    close() {
      closing ??= (async () => {
        // A cluster node first hands its tenants over as their calls end (bounded): a node
        // leaving cuts no call that ends within `--drain-ms`. It serves all along meanwhile.
        await runtime.node.drain();
        stopFailover();
        await extension.close?.();
        await started.close();
        await runtime.close();
      })();
      return closing;
    },
  };
}

/** The cluster node's links to the other nodes, on its own NATS connection and membership. */
async function clusterLinks(runtime: Runtime): Promise<ServerExtension> {
  const cluster = runtime.cluster!;
  const { composeForwarding } = await import('./cluster-forward.js');
  return composeForwarding(runtime, {
    nats: cluster.nats,
    prefix: cluster.prefix,
    clusterSize: () => cluster.membership.aliveNodes().length,
    settleMs: cluster.leaseTtlMs + 1_000,
  });
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
    runtime.cluster
      ? `  cluster             ${c.clusterName}, node ${runtime.node.nodeId}  (${httpUrl}/cluster)`
      : `  node                ${runtime.node.nodeId}, standalone  (${httpUrl}/cluster)`,
    '',
    'Demo credentials:',
    ...credentialLines(c),
  ];
  return lines.join('\n');
}
