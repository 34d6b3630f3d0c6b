/**
 * Cluster nodes for tests: N Switchboard nodes on one fresh PostgreSQL database and the NATS
 * server, as child processes (`node --import tsx src/cli/main.ts serve …`, so kill -9 is real) or
 * in this process (`startServer`, cheaper, for everything that needs no crash).
 *
 *   const env = await clusterEnv();              // skips (one line) without PostgreSQL or NATS
 *   describe('…', { skip: env.skip }, () => {
 *     const c = await startClusterNodes({ nodes: 3 });
 *     await c.nodes[0].fetch('/cluster', { auth: 'admin:admin' });
 *     await c.nodes[1].kill();                    // SIGKILL a child process
 *     await c.stop();                             // every node, then the database
 *   });
 *
 * PostgreSQL: SWITCHBOARD_TEST_PG_URL, else postgres://postgres@127.0.0.1:5432/postgres; NATS:
 * SWITCHBOARD_TEST_NATS_URL, else nats://127.0.0.1:4222. Without them a suite skips with one line;
 * under CI (CI=true) it fails instead, as every suite must run there.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import pino from 'pino';
import { type Config, DEFAULTS } from '../../src/server/config.js';
import { type Server, startServer } from '../../src/server/serve.js';
import type { TrafficObserver } from '../../src/api/transport/traffic.js';
import { fetcherOf } from './server.js';
import { ROOT } from './cli.js';
import { NATS_URL, PG_URL } from './cluster-engines.js';

let envProbe: Promise<{ skip?: string }> | undefined;

/** Whether PostgreSQL and NATS answer: `{}`, or `{ skip: why }` (printed once); under CI it throws. */
export function clusterEnv(): Promise<{ skip?: string }> {
  return (envProbe ??= (async () => {
    const why = (await pgProblem()) ?? (await natsProblem());
    if (!why) return {};
    if (process.env.CI && process.env.CI !== 'false') throw new Error(`cluster tests cannot run: ${why}`);
    console.log(`cluster tests skipped: ${why}`);
    return { skip: why };
  })());
}

async function pgProblem(): Promise<string | undefined> {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query('select 1');
    return undefined;
  } catch (e) {
    return `no PostgreSQL at ${PG_URL} (${(e as Error).message}; set SWITCHBOARD_TEST_PG_URL)`;
  } finally {
    await c.end().catch(() => {});
  }
}

async function natsProblem(): Promise<string | undefined> {
  const { connect } = await import('@nats-io/transport-node');
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 3000, reconnect: false });
    await nc.close();
    return undefined;
  } catch (e) {
    return `no NATS at ${NATS_URL} (${(e as Error).message}; set SWITCHBOARD_TEST_NATS_URL)`;
  }
}

let counter = 0;
/** A name no other test (or helper, or run) uses: for databases, schemas and cluster names. */
export function uniqueName(prefix = 'sbt'): string {
  return `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
}

/** A new, empty database on the test server, and how to drop it. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = uniqueName('sb_db');
  await adminQuery(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => adminQuery(`drop database if exists ${name} with (force)`) };
}

async function adminQuery(text: string): Promise<void> {
  const pg = await import('pg');
  const c = new pg.default.Client({ connectionString: PG_URL });
  await c.connect();
  try {
    await c.query(text);
  } finally {
    await c.end();
  }
}

export interface ClusterNode {
  nodeId: string;
  httpUrl: string;
  wsUrl: string;
  /** Child processes only. */
  pid?: number;
  /** In-process nodes only: the server itself. */
  server?: Server;
  /** Fetch relative to the node, with optional Basic credentials `user:pass` and a JSON body. */
  fetch(path: string, init?: RequestInit & { auth?: string; json?: unknown }): Promise<Response>;
  /**
   * A crash. A child process gets the signal (default SIGKILL). An in-process node stops its
   * membership's tick and HTTP server without releasing anything, so its leases lapse.
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** A graceful stop (SIGTERM for a child): leases released, node row removed. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** Child processes (default) or in-process servers. */
  inProcess?: boolean;
  /** Lease TTL (default 5000, the flag's default). */
  leaseTtlMs?: number;
  /** Default virtual, as the API tests use. */
  clock?: 'real' | 'virtual';
  /**
   * `--drain-ms` of every node (default 0 here, unlike the flag's: a stopping node gives its
   * tenants up at once, so suites that stop nodes with calls up do not wait).
   */
  drainMs?: number;
  /** Tenants added (ids 2001, 2002, …) through the first node before the others start. */
  extraTenants?: number;
  /** More flags for every child process, e.g. ['--log-level', 'info']. */
  args?: string[];
  /** More config for every in-process node. */
  config?: Partial<Config>;
  /** Sees every in-process node's responses and frames (the contract checks). */
  traffic?: TrafficObserver;
  /** An existing database (default: a fresh one, dropped by stop()). */
  databaseUrl?: string;
}

export interface Cluster {
  nodes: ClusterNode[];
  clusterName: string;
  /** `sb.<clusterName>`. */
  prefix: string;
  databaseUrl: string;
  natsUrl: string;
  /** One more node of the same cluster. */
  addNode(): Promise<ClusterNode>;
  /** Stops every node still running, then drops the database (when this helper created it). */
  stop(): Promise<void>;
}

export async function startClusterNodes(opts: ClusterOptions): Promise<Cluster> {
  const clusterName = uniqueName('c').replace(/_/g, '-');
  const db = opts.databaseUrl ? undefined : await freshDatabase();
  const databaseUrl = opts.databaseUrl ?? db!.url;
  const nodes: ClusterNode[] = [];
  let n = 0;
  const base = {
    databaseUrl,
    clusterName,
    ttl: opts.leaseTtlMs ?? 5000,
    clock: opts.clock ?? 'virtual',
    drainMs: opts.drainMs ?? 0,
  };
  const addNode = async () => {
    const nodeId = `n${++n}`;
    const node = opts.inProcess
      ? await inProcessNode(nodeId, base, opts.config ?? {}, opts.traffic)
      : await childNode(nodeId, base, opts.args ?? []);
    nodes.push(node);
    return node;
  };
  const cluster: Cluster = {
    nodes,
    clusterName,
    prefix: `sb.${clusterName}`,
    databaseUrl,
    natsUrl: NATS_URL,
    addNode,
    async stop() {
      await Promise.allSettled(nodes.map((x) => x.stop()));
      await deleteStream(clusterName);
      await db?.drop();
    },
  };
  try {
    // The first node seeds the database; the others start together.
    await addNode();
    for (let i = 0; i < (opts.extraTenants ?? 0); i++) {
      const r = await nodes[0]!.fetch('/api/v1/tenants', {
        method: 'POST',
        auth: 'admin:admin',
        json: { tenantId: 2001 + i, name: `Extra ${i + 1}` },
      });
      if (r.status !== 201) throw new Error(`adding tenant ${2001 + i}: ${r.status} ${await r.text()}`);
    }
    await Promise.all(Array.from({ length: opts.nodes - 1 }, addNode));
  } catch (e) {
    await cluster.stop();
    throw e;
  }
  return cluster;
}

interface Base {
  databaseUrl: string;
  clusterName: string;
  ttl: number;
  clock: 'real' | 'virtual';
  drainMs: number;
}

async function childNode(nodeId: string, b: Base, args: string[]): Promise<ClusterNode> {
  // prettier-ignore
  const flags = [
    '--database-url', b.databaseUrl, '--nats', NATS_URL, '--cluster-name', b.clusterName,
    '--node-id', nodeId, '--lease-ttl-ms', String(b.ttl), '--clock', b.clock,
    '--drain-ms', String(b.drainMs),
  ];
  return startNodeProcess([...flags, ...args], nodeId);
}

/**
 * `switchboard serve --port 0 <args>` as a child process, once it listens. Also for standalone
 * servers (the guard's tests). Its log goes to this process's stderr with
 * SWITCHBOARD_TEST_NODE_LOGS set.
 */
export async function startNodeProcess(args: string[], nodeId: string): Promise<ClusterNode> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: process.env.SWITCHBOARD_LOG_LEVEL ?? 'warn' },
    },
  );
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const httpUrl = await listening(child, nodeId);
  const stopWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return {
    nodeId,
    httpUrl,
    wsUrl: httpUrl.replace(/^http/, 'ws'),
    pid: child.pid,
    fetch: fetcherOf(httpUrl),
    kill: (signal = 'SIGKILL') => stopWith(signal),
    stop: () => stopWith('SIGTERM'),
  };
}

/** Waits for the banner's first line; fails with the node's output if it exits first. */
function listening(child: ChildProcess, nodeId: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${nodeId} did not start within 120 s: ${out}${err}`));
    }, 120_000);
    child.stdout!.on('data', (d) => {
      out += d;
      if (process.env.SWITCHBOARD_TEST_NODE_LOGS) process.stderr.write(`[${nodeId}] ${d}`);
      const m = /Switchboard listening on (\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (d) => {
      err += d;
      if (process.env.SWITCHBOARD_TEST_NODE_LOGS) process.stderr.write(`[${nodeId}] ${d}`);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`node ${nodeId} exited (${code ?? signal}) before listening: ${err.trim()}`));
    });
  });
}

async function inProcessNode(
  nodeId: string,
  b: Base,
  extra: Partial<Config>,
  traffic?: TrafficObserver,
): Promise<ClusterNode> {
  const config: Config = {
    ...DEFAULTS,
    port: 0,
    databaseUrl: b.databaseUrl,
    nats: [NATS_URL],
    clusterName: b.clusterName,
    nodeId,
    leaseTtlMs: b.ttl,
    drainMs: b.drainMs,
    clock: b.clock,
    logLevel: 'silent',
    ...extra,
  };
  const server = await startServer(
    config,
    pino({ level: process.env.SWITCHBOARD_TEST_NODE_LOGS ? 'info' : 'silent' }),
    traffic ? { traffic } : {},
  );
  let stopped: Promise<void> | undefined;
  return {
    nodeId,
    httpUrl: server.httpUrl,
    wsUrl: server.wsUrl,
    server,
    fetch: fetcherOf(server.httpUrl),
    async kill() {
      server.runtime.cluster?.membership.pause();
      await server.runtime.cluster?.nats.close();
      await server.app.close();
    },
    stop: () => (stopped ??= server.close()),
  };
}

/** The cluster's JetStream stream, if a piece of the node made one (cl-events). */
async function deleteStream(clusterName: string): Promise<void> {
  try {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const nc = await connect({ servers: NATS_URL, timeout: 3000, reconnect: false });
    try {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(`SB_${clusterName}_EVENTS`).catch(() => {});
    } finally {
      await nc.close();
    }
  } catch {
    // NATS gone: nothing to clean.
  }
}
