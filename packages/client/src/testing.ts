/**
 * Switchboard inside an integrator's test suite (docs/testing-with-switchboard.md): a server on a
 * free port with a fresh database and the virtual clock, reset between tests, the simulator at
 * hand, stopped at the end. By default it runs the `switchboard` package the project installed,
 * with the Node running the tests; `command` runs anything else that accepts `serve` options.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface StartSwitchboardOptions {
  /** The command before `serve` (default: this Node and the installed package's bin). */
  command?: string[];
  /** More `switchboard serve` options, e.g. `['--clock', 'real']` (later ones win). */
  args?: string[];
  /** Extra environment for the server. */
  env?: Record<string, string>;
  /** The telco admin the simulator calls use (default: the demo world's admin). */
  admin?: { username: string; password: string };
  /** Where to look for the `switchboard` package (default: the working folder). */
  from?: string;
  /** How long the server may take to listen (default 60 s). */
  startTimeoutMs?: number;
}

export interface TestSwitchboard {
  /** The server's base URL, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** Everything back to the demo world: calls, clock, provisioning, lock-outs. */
  reset(): Promise<void>;
  /** One simulator call (`/sim/v1` + path) as the telco admin; the JSON answer, or undefined. */
  sim<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** Moves the virtual clock (timers, ringing time-outs, wrap-up). */
  advanceClock(ms: number): Promise<void>;
  /** Stops the server and removes its database. */
  stop(): Promise<void>;
}

/** The installed `switchboard` package's bin, run by this Node. */
function installedServer(from: string): string[] {
  const require = createRequire(join(from, 'package.json'));
  const manifest = require.resolve('switchboard/package.json');
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: Record<string, string> };
  return [process.execPath, join(dirname(manifest), bin.switchboard)];
}

export async function startSwitchboard(opts: StartSwitchboardOptions = {}): Promise<TestSwitchboard> {
  const [command, ...prefix] = opts.command ?? installedServer(opts.from ?? process.cwd());
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-'));
  const args = [
    ...prefix,
    'serve',
    ...['--port', '0', '--host', '127.0.0.1', '--db', join(dir, 'switchboard.db')],
    ...['--clock', 'virtual', '--log-level', 'warn'],
    ...(opts.args ?? []),
  ];
  const child = spawn(command, args, {
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let url: string;
  try {
    url = await listening(child, opts.startTimeoutMs ?? 60_000);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const admin = opts.admin ?? { username: 'admin', password: 'admin' };
  const authorization = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`;
  const sim = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/sim/v1${path}`, {
      method,
      headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /sim/v1${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  let stopped: Promise<void> | undefined;
  return {
    url,
    sim,
    reset: () => sim('POST', '/reset'),
    advanceClock: (ms) => sim('POST', '/clock/advance', { ms }),
    stop: () =>
      (stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((done) => child.once('exit', done));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        }
        rmSync(dir, { recursive: true, force: true });
      })()),
  };
}

/** Resolves with the address of the server's "listening" line; fails when it exits first. */
function listening(child: ChildProcess, timeoutMs: number): Promise<string> {
  let output = '';
  return new Promise((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`switchboard did not listen within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const read = (chunk: Buffer) => {
      output += chunk;
      const m = /Switchboard listening on (https?:\/\/\S+)/.exec(output);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', read);
      child.stdout!.resume();
      child.stderr!.resume();
      done(m[1]);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (d: Buffer) => (output += d));
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`switchboard exited with ${code} before listening:\n${output}`));
    });
  });
}
