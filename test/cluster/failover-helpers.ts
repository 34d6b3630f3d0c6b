/**
 * What the failover suites share: the real CLI server as a child process (so it can be killed
 * with SIGKILL), a fresh PostgreSQL database or schema on the local server (skipped in one line
 * where there is none, except under CI), and small HTTP helpers for both APIs and the simulator.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import pg from 'pg';
import { ROOT } from '../helpers/cli.js';
import { basic } from '../helpers/server.js';

export const PG_URL = process.env.SWITCHBOARD_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const underCi = () => !!process.env.CI && process.env.CI !== 'false';

/** The PostgreSQL server's URL, or undefined (with the reason printed) where there is none outside CI. */
export async function postgresOrSkip(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return PG_URL;
  } catch (e) {
    if (underCi())
      throw new Error(`PostgreSQL at ${PG_URL} does not answer (CI runs every suite)`, { cause: e });
    console.log(`# skipped: no PostgreSQL at ${PG_URL} (${(e as Error).message})`);
    return undefined;
  } finally {
    await client.end().catch(() => {});
  }
}

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the server (for a CLI server, which takes a URL); dropped by `drop`. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sb_failover_${process.pid}_${Date.now()}`;
  await admin(`create database ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin(`drop database if exists ${name} with (force)`),
  };
}

/** A fresh schema name (for in-process runtimes, `DatabaseTarget.schema`); dropped by `drop`. */
export function freshSchema(): { schema: string; drop(): Promise<void> } {
  const schema = `sb_failover_${process.pid}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  return { schema, drop: () => admin(`drop schema if exists ${schema} cascade`) };
}

export interface ServeProcess {
  url: string;
  child: ChildProcessWithoutNullStreams;
  /** SIGKILL, and the exit. */
  kill9(): Promise<void>;
}

/** `switchboard serve --port 0 …` from source; resolves once it listens. */
export async function serve(args: string[]): Promise<ServeProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: 'silent' },
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
  });
  return {
    url,
    child,
    async kill9() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, read field by field
  body: any;
}

/** One JSON request; `auth` is `user:pass` (Basic) or `Bearer …`. */
export async function request(
  base: string,
  method: string,
  path: string,
  opts: { auth?: string; json?: unknown } = {},
): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.auth) headers.authorization = opts.auth.startsWith('Bearer ') ? opts.auth : basic(opts.auth);
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A contact-center bearer token (`Bearer …`). */
export async function ccToken(base: string, username: string, password = '1234'): Promise<string> {
  const r = await request(base, 'POST', '/6/v2/api/oauth/token', {
    json: { grant_type: 'password', username, password },
  });
  if (r.status !== 200) throw new Error(`login ${username}: ${r.status}`);
  return `Bearer ${r.body.access_token}`;
}

/** Polls (real time) until `probe` gives a value; fails naming `what`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  what: string,
  ms = 8000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
