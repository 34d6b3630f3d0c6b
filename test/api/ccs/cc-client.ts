import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Config } from '../../../src/server/config.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

export const BASE = '/6/v2/api';

/** A contact-center client of the test server: token once, then JSON calls with Bearer. */
export class CcClient {
  private constructor(
    private readonly server: TestServer,
    readonly token: string,
  ) {}

  static async login(
    server: TestServer,
    username: string,
    password = username.includes('@') ? '1234' : username,
  ) {
    const res = await server.fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      json: { grant_type: 'password', username, password },
    });
    if (res.status !== 200) throw new Error(`login ${username}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { access_token: string };
    return new CcClient(server, body.access_token);
  }

  async call(method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
    const res = await this.server.fetch(`${BASE}/${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      ...(json !== undefined ? { body: JSON.stringify(json) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
  get(path: string) {
    return this.call('GET', path);
  }
  post(path: string, json: unknown) {
    return this.call('POST', path, json);
  }
  put(path: string, json: unknown) {
    return this.call('PUT', path, json);
  }
}

/** An event socket that has connected with the token and collects every frame. */
/** A test server and the contact-center client of Acme's tenant admin (100@1001) on it. */
export async function serverWithAcmeAdmin(
  overrides: Partial<Config> = {},
): Promise<{ server: TestServer; acmeAdmin: CcClient }> {
  const server = await startTestServer(overrides);
  return { server, acmeAdmin: await CcClient.login(server, '100@1001') };
}

export async function openEventSocket(server: TestServer, token: string) {
  const ws = new WebSocket(`${server.httpUrl.replace(/^http/, 'ws')}/6/v2/sock`);
  const frames: any[] = [];
  const waiters: { match: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  ws.on('message', (d, isBinary) => {
    // The spec's frames are JSON text; the fan-out sends one pre-encoded buffer, as text.
    assert.equal(isBinary, false, 'a contact-center frame arrived as a binary frame');
    const f = JSON.parse(d.toString());
    frames.push(f);
    for (const w of [...waiters]) {
      if (w.match(f)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(f);
      }
    }
  });
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  const next = (match: (f: any) => boolean, timeoutMs = 3000) => {
    const found = frames.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<any>((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no matching frame')), timeoutMs);
      waiters.push({
        match,
        resolve: (f) => {
          clearTimeout(t);
          resolve(f);
        },
      });
    });
  };
  ws.send(JSON.stringify({ request: 'connect', token }));
  const answer = await next((f) => f.response === 'connect');
  const close = () =>
    new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve();
      ws.once('close', () => resolve());
      ws.close();
    });
  return { ws, frames, next, answer, close };
}

/** Polls until `check` returns a value (the switch delivers ACD work after each command). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what: string,
): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    await sleep(10);
  }
  throw new Error(`never: ${what}`);
}

/** Drives the simulator control API (`/sim/v1`) as the telco admin; throws on a refusal. */
export async function sim(server: TestServer, path: string, json: unknown = {}): Promise<any> {
  const res = await server.fetch(`/sim/v1/${path}`, { method: 'POST', auth: 'admin:admin', json });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`sim ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}
