/**
 * What the failover suites share besides the cluster helpers (test/helpers/cluster.ts): PostgreSQL
 * alone (the standalone restart needs no NATS; skipped in one line where there is none, except
 * under CI), and small HTTP helpers for both APIs and the simulator.
 */
import pg from 'pg';
import { PG_URL } from '../helpers/cluster-engines.js';
import { basic } from '../helpers/server.js';

const underCi = () => !!process.env.CI && process.env.CI !== 'false';

/** True when PostgreSQL answers; else prints why and answers false (under CI: throws). */
export async function postgresOrSkip(): Promise<boolean> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (e) {
    if (underCi())
      throw new Error(`PostgreSQL at ${PG_URL} does not answer (CI runs every suite)`, { cause: e });
    console.log(`# skipped: no PostgreSQL at ${PG_URL} (${(e as Error).message})`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
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
