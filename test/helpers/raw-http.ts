import { type IncomingHttpHeaders, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { basic, type TestServer } from './server.js';

/** Requests from a chosen loopback address (`127.0.0.2` …): the server sees another client IP. */
export interface From {
  from?: string;
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One complete HTTP request over its own connection. */
export function send(
  s: Pick<TestServer, 'httpUrl' | 'wsUrl'>,
  path: string,
  opts: From & { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, s.httpUrl), {
      method: opts.method ?? 'GET',
      headers: opts.headers,
      agent: false,
      ...(opts.from ? { localAddress: opts.from } : {}),
    });
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** `GET path` with Basic credentials `user:pass`. */
export const getBasic = (
  s: Pick<TestServer, 'httpUrl' | 'wsUrl'>,
  path: string,
  userPass: string,
  opts: From = {},
) => send(s, path, { ...opts, headers: { authorization: basic(userPass) } });

/** A password grant of the contact-center API. */
export const grant = (
  s: Pick<TestServer, 'httpUrl' | 'wsUrl'>,
  username: string,
  password: string,
  opts: From = {},
) =>
  send(s, '/6/v2/api/oauth/token', {
    ...opts,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });

/**
 * A request whose body never completes (it announces more than it sends). `answer` settles with
 * the status the server gave, or -1 when it closed the connection without one.
 */
export function heldRequest(
  s: Pick<TestServer, 'httpUrl' | 'wsUrl'>,
  path: string,
  opts: From & { method?: string; headers?: Record<string, string> } = {},
): { answer: Promise<number>; abort(): void } {
  const req = request(new URL(path, s.httpUrl), {
    method: opts.method ?? 'POST',
    headers: { 'content-type': 'application/json', 'content-length': '1000', ...opts.headers },
    agent: false,
    ...(opts.from ? { localAddress: opts.from } : {}),
  });
  const answer = new Promise<number>((resolve) => {
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(-1));
    req.on('close', () => resolve(-1));
  });
  req.write('{"request":');
  return { answer, abort: () => req.destroy() };
}

/**
 * A WebSocket upgrade's outcome: the HTTP status of a refusal, or the open socket with its first
 * frame and its close code (listened for from the start: a refused socket may close at once).
 */
export function upgrade(
  s: Pick<TestServer, 'httpUrl' | 'wsUrl'>,
  path: string,
  opts: From & { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<{ status: number; ws?: WebSocket; closed: Promise<number>; first: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL(path, s.wsUrl), opts.protocols ?? [], {
      headers: opts.headers,
      ...(opts.from ? { localAddress: opts.from } : {}),
    });
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    const first = new Promise<string>((r) => ws.once('message', (d) => r(String(d))));
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, closed, first });
    });
    ws.once('open', () => resolve({ status: 101, ws, closed, first }));
    ws.once('error', reject);
  });
}

/** Waits (bounded) until `n` of the answers have settled; returns those values, in arrival order. */
export async function firstAnswers(
  answers: Promise<number>[],
  n: number,
  limitMs = 60_000,
): Promise<number[]> {
  const done: number[] = [];
  for (const a of answers) void a.then((v) => done.push(v));
  for (let waited = 0; done.length < n && waited < limitMs; waited += 50) await sleep(50);
  return done;
}

/**
 * A request held in flight for good: `hold()` makes it (e.g. a `heldRequest`), and whenever it is
 * answered (it lost the race for a slot to a probe sent meanwhile, and was refused as busy) it is
 * made again, until `abort`. For tests that hold a client's whole allowance and probe it.
 */
export function keptHeld(hold: () => { answer: Promise<number>; abort(): void }): { abort(): void } {
  let stopped = false;
  let current = hold();
  const watch = () => {
    void current.answer.then(() => {
      if (stopped) return;
      current = hold();
      watch();
    });
  };
  watch();
  return {
    abort() {
      stopped = true;
      current.abort();
    },
  };
}
