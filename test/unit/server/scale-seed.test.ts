import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { RECENT_WINDOW } from '../../../src/store/call-records.js';
import { type DatabaseTarget, openDatabase } from '../../../src/store/database.js';
import { runCli } from '../../helpers/cli.js';
import { basic, startTestServer } from '../../helpers/server.js';
import { CcClient } from '../../api/ccs/cc-client.js';

/**
 * `switchboard seed --scale 2` with a short history, through the CLI, on SQLite and on a fresh
 * PostgreSQL database: the server then serves the copies of the demo tenants and their history,
 * and the same seed value gives the same data.
 */

const PG_SERVER = process.env.SWITCHBOARD_SCALE_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432';
const HISTORY = ['--history-days', '20', '--history-records', '3000', '--history-end', '2025-07-01'];

interface Dialect {
  name: string;
  /** A new, empty database: its CLI flags and its target for reading it back. */
  fresh(): Promise<{
    flags: string[];
    target: DatabaseTarget;
    config: { db?: string; databaseUrl?: string };
  }>;
  cleanup(): Promise<void>;
  /** Why this dialect cannot run here (no PostgreSQL server), or undefined. */
  unavailable(): Promise<string | undefined>;
}

const sqlite: Dialect = {
  name: 'sqlite',
  async fresh() {
    const db = join(mkdtempSync(join(tmpdir(), 'sb-scale-')), 'scale.db');
    return { flags: ['--db', db], target: { kind: 'sqlite', file: db }, config: { db } };
  },
  async cleanup() {},
  async unavailable() {
    return undefined;
  },
};

const created: string[] = [];
async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: `${PG_SERVER}/postgres`, connectionTimeoutMillis: 3000 });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
const postgres: Dialect = {
  name: 'postgres',
  async fresh() {
    const name = `sb_scale_${process.pid}_${Date.now()}_${created.length}`;
    await admin((c) => c.query(`create database ${name}`));
    created.push(name);
    const url = `${PG_SERVER}/${name}`;
    return {
      flags: ['--database-url', url],
      target: { kind: 'postgres', url },
      config: { databaseUrl: url },
    };
  },
  async cleanup() {
    for (const name of created.splice(0))
      await admin((c) => c.query(`drop database if exists ${name} with (force)`));
  },
  async unavailable() {
    try {
      await admin((c) => c.query('select 1'));
      return undefined;
    } catch (e) {
      return `no PostgreSQL at ${PG_SERVER} (${(e as Error).message})`;
    }
  },
};

/** Every row that makes the world and its history, in a fixed order (salted hashes masked: every seed salts anew). */
async function contents(target: DatabaseTarget) {
  const db = await openDatabase(target);
  try {
    const entities = await db.kysely
      .selectFrom('directory_entities')
      .select(['kind', 'id', 'tenant_id', 'data'])
      .orderBy('kind')
      .orderBy('id')
      .execute();
    const records = await db.kysely.selectFrom('call_records').selectAll().orderBy('smdr_call_id').execute();
    return {
      entities: entities.map((e) => ({ ...e, data: e.data.replace(/scrypt\$[^"]*/g, 'scrypt$(salted)') })),
      records,
    };
  } finally {
    await db.close();
  }
}

async function seedCli(flags: string[], seedValue: string) {
  const r = await runCli(
    ['seed', '--scale', '2', '--seed-value', seedValue, ...HISTORY, ...flags],
    {},
    180_000,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /seeded with the scale world 2: 4 tenants, 3000 calls/);
}

for (const dialect of [sqlite, postgres]) {
  describe(`seed --scale on ${dialect.name}`, () => {
    let skip: string | undefined;
    let first: Awaited<ReturnType<Dialect['fresh']>>;
    before(async () => {
      skip = await dialect.unavailable();
      if (skip && process.env.CI && process.env.CI !== 'false')
        throw new Error(`${skip}; CI runs every suite`);
      if (skip) return;
      first = await dialect.fresh();
      await seedCli(first.flags, 'one');
    });
    after(() => dialect.cleanup());

    test('the server serves the copies of the demo tenants, with their history', async (t) => {
      if (skip) return t.skip(skip);
      const server = await startTestServer(first.config);
      try {
        const tenants = await server.fetch('/api/v1/tenants', { auth: 'admin:admin' });
        assert.equal(tenants.status, 200);
        const listed = (await tenants.json()) as { _embedded: { tenants: { tenantId: number }[] } };
        const ids = listed._embedded.tenants.map((x) => x.tenantId);
        assert.deepEqual(ids, [1001, 1002, 1003, 1004]);

        // The copy of Acme: its own admin, users, phones and DIDs.
        const acme2 = await server.fetch('/api/v1/tenants/1003', { auth: '100@1003:1234' });
        assert.equal(acme2.status, 200);
        const t1003 = (await acme2.json()) as { name: string };
        assert.equal(t1003.name, 'Acme Corp 2');
        const user = await server.fetch('/api/v1/tenants/1003/users/101', { auth: '101@1003:1234' });
        assert.equal(user.status, 200);
        assert.equal(((await user.json()) as { lastName: string }).lastName, 'Brown');
        const globex2 = await server.fetch('/api/v1', { headers: { authorization: basic('200@1004:1234') } });
        assert.equal(globex2.status, 200);
        assert.equal((await server.fetch('/api/v1/tenants/1001', { auth: '100@1003:1234' })).status, 403);

        // The contact center of the copy: its history, newest first, and the search by number.
        const cc = await CcClient.login(server, '100@1003');
        const calls = await cc.get('calls');
        assert.equal(calls.status, 200);
        const items = calls.body.items as { id: string; time: string; calling: { number: string } }[];
        assert.equal(items.length, RECENT_WINDOW, 'the newest window of the history');
        const times = items.map((c) => c.time);
        assert.deepEqual(times, [...times].sort().reverse(), 'newest first');
        const outside = items.find((c) => c.calling.number.startsWith('+1555000'))!;
        const found = await cc.get(
          `calls/filter?calling_number=${encodeURIComponent(outside.calling.number)}`,
        );
        assert.equal(found.status, 200);
        assert.equal(found.body.call_details.id, outside.id, 'the newest call from that number');
        const one = await cc.get(`calls/${outside.id}`);
        assert.equal(one.status, 200);
        // Another tenant's call is not the copy's.
        const acme = await CcClient.login(server, '100@1001');
        assert.equal((await acme.get(`calls/${outside.id}`)).status, 404);
      } finally {
        await server.stop();
      }
    });

    test('a database that holds a world already is replaced only with --reset', async (t) => {
      if (skip) return t.skip(skip);
      const r = await runCli(['seed', '--scale', '2', ...first.flags], {}, 60_000);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /holds a world already: add --reset/);
    });

    test('the same seed value gives the same world and history; another value another history', async (t) => {
      if (skip) return t.skip(skip);
      const [same, other] = [await dialect.fresh(), await dialect.fresh()];
      await seedCli(same.flags, 'one');
      await seedCli(other.flags, 'two');
      const a = await contents(first.target);
      const b = await contents(same.target);
      const c = await contents(other.target);
      assert.equal(a.records.length, 3000);
      assert.deepEqual(b, a);
      assert.deepEqual(c.entities, a.entities, 'the world does not depend on the seed value');
      assert.notDeepEqual(c.records, a.records);
    });
  });
}
