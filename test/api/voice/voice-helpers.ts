import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { basic, type TestServer } from '../../helpers/server.js';

export const ALICE = '100@1001:1234'; // tenant admin
export const BOB = '101@1001:1234';
export const CAROL = '102@1001:1234';
export const LOBBY = '150@1001:1234'; // location
export const GRACE = '200@1002:1234'; // Globex admin
export const HANK = '201@1002:1234'; // Globex user
export const ADMIN = 'admin:admin'; // telco
export const OPERATOR = 'operator:operator'; // scoped telco with CallControl

export async function getJson(
  s: TestServer,
  path: string,
  auth: string,
  init: RequestInit & { json?: unknown } = {},
) {
  const r = await s.fetch(path, { auth, ...init });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : undefined };
}

/** A socket that records every frame after the webSocketId message. */
export interface EventSocket {
  ws: WebSocket;
  id: string;
  frames: Record<string, unknown>[];
  /** Waits until `n` frames have arrived in all (real time, bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Opens `/api/ws` (or the address a link gave, resolved against the server). */
export function openSocket(s: TestServer, auth: string, href = '/api/ws'): Promise<EventSocket> {
  const url = new URL(href, s.wsUrl);
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: { authorization: basic(auth) } });
    const frames: Record<string, unknown>[] = [];
    let waiters: (() => void)[] = [];
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`status ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
    ws.once('message', (first) => {
      const id = JSON.parse(String(first)).webSocketId as string;
      ws.on('message', (d) => {
        const text = String(d);
        try {
          frames.push(JSON.parse(text));
        } catch {
          frames.push({ text });
        }
        for (const w of waiters) w();
      });
      resolve({
        ws,
        id,
        frames,
        waitFor(n, timeoutMs = 2000) {
          return new Promise((res, rej) => {
            const check = () => {
              if (frames.length >= n) {
                clearTimeout(timer);
                waiters = waiters.filter((w) => w !== check);
                res(frames);
              }
            };
            const timer = setTimeout(() => {
              waiters = waiters.filter((w) => w !== check);
              rej(new Error(`expected ${n} frames, got ${frames.length}: ${JSON.stringify(frames)}`));
            }, timeoutMs);
            waiters.push(check);
            check();
          });
        },
        close: () =>
          new Promise((res) => {
            if (ws.readyState === WebSocket.CLOSED) return res();
            ws.once('close', () => res());
            ws.close();
          }),
      });
    });
  });
}

/** A phone acts (`answer`, `hangup`, `unregister`...), through the simulator API; throws on a refusal. */
export async function simDevice(s: TestServer, deviceId: string, action: string): Promise<void> {
  const r = await s.fetch(`/sim/v1/devices/${encodeURIComponent(deviceId)}/${action}`, {
    method: 'POST',
    auth: 'admin:admin',
    json: {},
  });
  if (r.status >= 300) throw new Error(`sim ${action} ${deviceId}: ${r.status} ${await r.text()}`);
}

/** The phone answers, through the simulator API. */
export const simAnswer = (s: TestServer, deviceId: string): Promise<void> => simDevice(s, deviceId, 'answer');

/** Moves the simulator's virtual clock (on every node of a cluster). */
export async function simAdvance(s: TestServer, ms: number): Promise<void> {
  const r = await s.fetch('/sim/v1/clock/advance', { method: 'POST', auth: 'admin:admin', json: { ms } });
  if (r.status !== 200) throw new Error(`sim clock advance: ${r.status} ${await r.text()}`);
}

/** Reads `path` twice (the second is the kept answer, and must be the same); its body. */
export async function readTwice(s: TestServer, path: string, auth: string) {
  const first = await getJson(s, path, auth);
  const second = await getJson(s, path, auth);
  assert.equal(first.status, 200, `${path}: ${JSON.stringify(first.body)}`);
  assert.deepEqual(second.body, first.body, `${path}: the kept answer is the first one`);
  return second.body;
}
