// Helpers of the socket benchmarks: a keep-alive HTTP client, batched socket opening, an
// open-loop operation driver and a frame-rate counter.
import { appendFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { percentile } from './lib.js';

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

export interface HttpAnswer {
  status: number;
  headers: Record<string, unknown>;
  json: Record<string, unknown>;
}

export function http(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent,
        headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: text ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const closeHttp = () => agent.destroy();

/** Opens n sockets in batches of 100 (a burst of thousands overflows the listen backlog). */
export async function openSockets(
  url: string,
  n: number,
  opts: { headers?: Record<string, string>; firstMessages?: string[] } = {},
): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  while (out.length < n) {
    const batch = Math.min(100, n - out.length);
    const opened = await Promise.all(
      Array.from(
        { length: batch },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(url, { headers: opts.headers, perMessageDeflate: false });
            const first = opts.firstMessages;
            if (first) ws.once('message', (d) => (first.push(d.toString()), resolve(ws)));
            else ws.once('open', () => resolve(ws));
            ws.once('error', reject);
          }),
      ),
    );
    out.push(...opened);
  }
  return out;
}

export async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((r) => {
          if (s.readyState === WebSocket.CLOSED) return r();
          s.once('close', () => r());
          s.close();
        }),
    ),
  );
}

export interface LatencyResult {
  ops: number;
  /** Milliseconds from sending the POST to receiving its event frame. */
  latencies: number[];
  lost: number;
  /** Operations per second actually driven. */
  rate: number;
  p50: number;
  p99: number;
  max: number;
}

/**
 * Open loop: operation i is sent at t0 + i/rate on lane i % lanes, whatever the others are doing.
 * A lane runs one operation at a time (an operation on a call waits for the previous one on that
 * call to finish), so the lanes must be enough to keep the rate. `op(lane, i)` sends the request
 * and resolves once its event frame arrived (true) or was given up on after `timeoutMs` (false).
 */
export async function drive(opts: {
  ops: number;
  rate: number;
  lanes: number;
  op: (lane: number, i: number) => Promise<boolean>;
  /** Names the run in the timeline (`BENCH_TIMELINE`). */
  label?: string;
}): Promise<LatencyResult> {
  const latencies: number[] = [];
  /** `BENCH_TIMELINE=<file>`: each operation's start (ms into the run) and latency, appended there. */
  const timeline: string[] | undefined = process.env.BENCH_TIMELINE ? [] : undefined;
  let lost = 0;
  const busy: Promise<void>[] = Array.from({ length: opts.lanes }, () => Promise.resolve());
  const t0 = performance.now();
  for (let i = 0; i < opts.ops; i++) {
    const wait = t0 + (i * 1000) / opts.rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const lane = i % opts.lanes;
    busy[lane] = busy[lane].then(async () => {
      const start = performance.now();
      if (await opts.op(lane, i)) {
        const latency = performance.now() - start;
        latencies.push(latency);
        timeline?.push(`${opts.label ?? 'run'} ${(start - t0).toFixed(2)} ${latency.toFixed(3)}`);
      } else lost++;
    });
  }
  await Promise.all(busy);
  // The run's start in wall time (ms since the epoch): to line it up with the servers' own logs.
  const started = `# ${opts.label ?? 'run'} started ${Math.round(performance.timeOrigin + t0)}`;
  if (timeline?.length) appendFileSync(process.env.BENCH_TIMELINE!, `${started}\n${timeline.join('\n')}\n`);
  const rate = opts.ops / ((performance.now() - t0) / 1000);
  return {
    ops: opts.ops,
    latencies,
    lost,
    rate,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: Math.max(...latencies),
  };
}

/** Resolves `key`'s waiter when a frame with that key arrives; gives up after timeoutMs. */
export class FrameWaiter {
  private readonly waiting = new Map<string, () => void>();
  unexpected = 0;

  constructor(
    ws: WebSocket,
    keyOf: (frame: string) => string | undefined,
    private readonly timeoutMs = 1000,
  ) {
    ws.on('message', (d) => {
      const key = keyOf(d.toString());
      if (key === undefined) return;
      const done = this.waiting.get(key);
      if (!done) return void this.unexpected++;
      this.waiting.delete(key);
      done();
    });
  }

  /** Call before sending the request that raises the frame. */
  expect(key: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(key);
        resolve(false);
      }, this.timeoutMs);
      this.waiting.set(key, () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** Frames per second received on `sockets` while `triggers` events are raised one after another. */
export async function fanout(
  sockets: WebSocket[],
  trigger: () => Promise<void>,
  triggers: number,
): Promise<{ framesPerSec: number; received: number; expected: number }> {
  let received = 0;
  const expected = sockets.length * triggers;
  const done = new Promise<void>((resolve) => {
    for (const s of sockets)
      s.on('message', () => {
        if (++received === expected) resolve();
      });
  });
  const t0 = performance.now();
  for (let i = 0; i < triggers; i++) await trigger();
  await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))]);
  const secs = (performance.now() - t0) / 1000;
  for (const s of sockets) s.removeAllListeners('message');
  return { framesPerSec: received / secs, received, expected };
}
