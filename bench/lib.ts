import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';

export const ROOT = resolve(import.meta.dirname, '..');

/** Starts a child process that prints `listening <port>` and answers its port. */
export function startChild(
  args: string[],
  match = /listening (?:on http:\/\/127\.0\.0\.1:)?(\d+)/,
): Promise<{
  child: ChildProcess;
  port: number;
}> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = match.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        done({ child, port: Number(m[1]) });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => fail(new Error(`child exited (${code}): ${out}`)));
  });
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export async function load(opts: {
  url: string;
  headers?: Record<string, string>;
  connections: number;
  durationS: number;
  rate?: number;
}): Promise<LoadResult> {
  const r = await autocannon({
    url: opts.url,
    headers: opts.headers,
    connections: opts.connections,
    duration: opts.durationS,
    overallRate: opts.rate,
  });
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}

export const basicHeader = (userPass: string) => `Basic ${Buffer.from(userPass).toString('base64')}`;

export function verdict(ok: boolean): string {
  return ok ? 'PASS' : 'FAIL';
}

/** A fresh temporary SQLite file for one benchmark run. */
export const tempDb = (name: string) => join(mkdtempSync(join(tmpdir(), `sb-bench-${name}-`)), 'bench.db');

/** Starts the built server (`dist/`) on a free port with warn-level logs and the given flags. */
export function startSwitchboard(db: string, flags: string[] = []) {
  return startChild([
    'dist/cli/main.js',
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--log-level',
    'warn',
    ...flags,
  ]);
}
