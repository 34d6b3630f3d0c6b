import WebSocket from 'ws';
import type { PlatformEvent } from '../../src/api/platform-events.js';
import { basic, type TestServer } from './server.js';

/** A socket that keeps every text frame, raw and parsed, from the first one on. */
export interface RecordingSocket {
  ws: WebSocket;
  raw: string[];
  frames: Record<string, unknown>[];
  /** Waits until `n` frames have arrived in all (real time, bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<Record<string, unknown>[]>;
  /** Resolves once the socket is closed. */
  closed: Promise<void>;
}

export function record(ws: WebSocket): RecordingSocket {
  const raw: string[] = [];
  const frames: Record<string, unknown>[] = [];
  let waiters: (() => void)[] = [];
  ws.on('message', (d) => {
    const text = String(d);
    raw.push(text);
    frames.push(JSON.parse(text));
    for (const w of waiters) w();
  });
  const closed = new Promise<void>((res) => ws.once('close', () => res()));
  return {
    ws,
    raw,
    frames,
    closed,
    waitFor(n, timeoutMs = 3000) {
      return new Promise((res, rej) => {
        const check = () => {
          if (frames.length < n) return;
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
          res(frames);
        };
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== check);
          rej(
            new Error(`expected ${n} frames, got ${frames.length}: ${JSON.stringify(frames).slice(0, 2000)}`),
          );
        }, timeoutMs);
        waiters.push(check);
        check();
      });
    },
  };
}

/** Opens `/api/ws` with `query` and Basic `auth`; resolves once the upgrade succeeded. */
export function openVoice(s: TestServer, auth: string, query = ''): Promise<RecordingSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL(`/api/ws${query}`, s.wsUrl), {
      headers: { authorization: basic(auth) },
    });
    const rec = record(ws);
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`status ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
    ws.once('open', () => resolve(rec));
  });
}

/**
 * Opens `/6/v2/sock` and connects with `token` (and `resume` as the connect carries it, when
 * given); resolves with the socket and the connect's answer.
 */
export async function openCc(s: Pick<TestServer, 'wsUrl'>, token: string, resume?: unknown) {
  const ws = new WebSocket(`${s.wsUrl}/6/v2/sock`);
  const sock = record(ws);
  await new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  ws.send(JSON.stringify({ request: 'connect', token, ...(resume === undefined ? {} : { resume }) }));
  const [answer] = await sock.waitFor(1);
  return { sock, answer: answer as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Drops the connection without a closing handshake (as a lost network does), and waits for it. */
export async function drop(sock: RecordingSocket, s?: TestServer): Promise<void> {
  sock.ws.terminate();
  await sock.closed;
  // The server sees the TCP close a moment later.
  await new Promise((r) => setTimeout(r, 50));
  void s;
}

/** Presence events of 102@1001, as the switch publishes them (alternating DND on and off). */
export function presence(s: TestServer, n: number, observed = '102@1001'): void {
  for (let i = 0; i < n; i++) {
    const e: PlatformEvent = {
      type: 'presence',
      name: i % 2 === 0 ? 'dndOn' : 'dndOff',
      tenantId: Number(observed.split('@')[1]),
      observed,
      at: s.runtime.clock.now(),
    };
    s.runtime.bus.publish(e);
  }
}

/** The `sequence` of each frame that has one. */
export const sequences = (frames: Record<string, unknown>[]) =>
  frames.filter((f) => typeof f.sequence === 'number').map((f) => f.sequence as number);
