import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import pino from 'pino';
import { type Config, DEFAULTS } from '../../src/server/config.js';
import { type Server, startServer } from '../../src/server/serve.js';
import { ContractChecker } from './contract.js';

export interface TestServer extends Server {
  contract: ContractChecker;
  /** Every node's server: this one alone, or each node of a cluster run (for fault injection). */
  nodes: Server[];
  /** Fetch relative to the server, with optional Basic credentials `user:pass`. */
  fetch(path: string, init?: RequestInit & { auth?: string; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/**
 * A real server on a free port, a fresh SQLite file, the virtual clock and the demo world.
 * With SWITCHBOARD_TEST_CLUSTER=N (the cluster run of the black-box suites), N cluster nodes on
 * a fresh PostgreSQL database and NATS behind a proxy that sends each request to one at random
 * (with TLS, each connection: see test/helpers/random-proxy.ts).
 */
export async function startTestServer(
  overrides: Partial<Config> = {},
  /** A cluster node's: its shared database and the parts composed around its runtime. */
  node: Omit<NonNullable<Parameters<typeof startServer>[2]>, 'traffic'> = {},
): Promise<TestServer> {
  const clusterNodes = Number(process.env.SWITCHBOARD_TEST_CLUSTER ?? 0);
  if (clusterNodes > 0 && !node.target) return startClusterTestServer(overrides, clusterNodes);
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-test-'));
  const config: Config = {
    ...DEFAULTS,
    port: 0,
    db: join(dir, 'test.db'),
    clock: 'virtual',
    logLevel: 'silent',
    ...overrides,
  };
  // Every test server checks its traffic against its own OpenAPI and AsyncAPI documents.
  const contract = new ContractChecker();
  const server = await startServer(config, pino({ level: 'silent' }), {
    traffic: contract,
    ...node,
  });
  contract.bind(server.runtime);
  const close = server.close.bind(server);
  let stopped: Promise<void> | undefined;
  const stopOnce = () =>
    (stopped ??= (async () => {
      await close();
      rmSync(dir, { recursive: true, force: true });
    })());
  return Object.assign(server, {
    contract,
    nodes: [server],
    fetch: fetcherOf(server.httpUrl),
    /** Stops the server, then fails when any response or frame broke the published contract. */
    async stop() {
      await stopOnce();
      contract.assertClean();
    },
    async close() {
      await stopOnce();
      contract.assertClean();
    },
  });
}

/** The black-box suites' server as a cluster: see startTestServer. */
async function startClusterTestServer(overrides: Partial<Config>, n: number): Promise<TestServer> {
  const { clusterEnv, startClusterNodes } = await import('./cluster.js');
  const { startRandomProxy } = await import('./random-proxy.js');
  const env = await clusterEnv();
  if (env.skip) throw new Error(`SWITCHBOARD_TEST_CLUSTER is set but ${env.skip}`);
  const contract = new ContractChecker();
  const cluster = await startClusterNodes({
    nodes: n,
    inProcess: true,
    config: overrides,
    traffic: contract,
  });
  const servers = cluster.nodes.map((node) => node.server!);
  const first = servers[0]!;
  contract.bind(first.runtime);
  await everyTenantOwned(first, n);
  // Nodes that serve TLS themselves get a front that passes each connection through to one of
  // them: the handshake, and the TLS policy a suite tests, are the node's own.
  const proxy = await startRandomProxy(
    servers.map((s) => {
      const u = new URL(s.httpUrl);
      return { host: u.hostname, port: Number(u.port) };
    }),
    { tls: overrides.tls !== undefined },
  );
  let stopped: Promise<void> | undefined;
  const stopOnce = () =>
    (stopped ??= (async () => {
      await proxy.close();
      await cluster.stop();
    })());
  const server: Server = {
    app: first.app,
    runtime: first.runtime,
    httpUrl: proxy.url,
    wsUrl: proxy.url.replace(/^http/, 'ws'),
    close: stopOnce,
  };
  return Object.assign(server, {
    contract,
    nodes: servers,
    fetch: fetcherOf(proxy.url),
    async stop() {
      await stopOnce();
      contract.assertClean();
    },
    async close() {
      await stopOnce();
      contract.assertClean();
    },
  });
}

/**
 * Until every tenant of the demo world is held by the node that will keep it (its preferred node
 * among the live ones): the first node takes every tenant, then hands the others' over as they
 * join; a suite that started during that would see its tenant move under it (a call's leg that
 * ended a moment ago is kept in the owner's memory only).
 */
async function everyTenantOwned(server: Server, nodes: number): Promise<void> {
  const { preferredNode } = await import('../../src/cluster/rendezvous.js');
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await server.runtime.node.state();
    const live = state.nodes.filter((n) => n.alive).map((n) => n.nodeId);
    const holder = new Map(
      state.leases.filter((l) => l.expiresAt > state.now).map((l) => [l.tenantId, l.owner]),
    );
    if (live.length === nodes && state.tenants.every((t) => holder.get(t) === preferredNode(t, live))) return;
    if (Date.now() > deadline) throw new Error('the test cluster never settled its tenants');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Fetch relative to `baseUrl`, with optional Basic credentials `user:pass` and a JSON body. */
export function fetcherOf(baseUrl: string) {
  return (path: string, init: RequestInit & { auth?: string; json?: unknown } = {}) => {
    const headers = new Headers(init.headers);
    if (init.auth) headers.set('authorization', basic(init.auth));
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    return fetch(baseUrl + path, { ...init, headers, body });
  };
}

export function basic(userPass: string): string {
  return `Basic ${Buffer.from(userPass).toString('base64')}`;
}

/**
 * One test server for the enclosing suite: started before its tests, stopped after them (which
 * fails the suite when its traffic broke the published contract). Call inside `describe`.
 */
export function suiteServer(overrides: Partial<Config> = {}): () => TestServer {
  let server: TestServer | undefined;
  before(async () => {
    server = await startTestServer(overrides);
  });
  after(async () => server?.stop());
  return () => {
    if (!server) throw new Error('the suite server has not started');
    return server;
  };
}

/** `POST /sim/v1/reset` as the operator: the demo world again (in a cluster run, on every node). */
export async function simReset(s: { fetch: TestServer['fetch'] }): Promise<void> {
  const r = await s.fetch('/sim/v1/reset', { method: 'POST', auth: 'admin:admin' });
  if (r.status !== 204) throw new Error(`POST /sim/v1/reset answered ${r.status}: ${await r.text()}`);
}
