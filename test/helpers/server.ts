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
  /** Fetch relative to the server, with optional Basic credentials `user:pass`. */
  fetch(path: string, init?: RequestInit & { auth?: string; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** A real server on a free port, a fresh SQLite file, the virtual clock and the demo world. */
export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
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
    fetch: fetcher(server.httpUrl),
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

/** Fetch relative to `baseUrl`, with optional Basic credentials `user:pass` and a JSON body. */
export function fetcher(baseUrl: string) {
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
