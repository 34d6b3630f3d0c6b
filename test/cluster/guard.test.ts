/**
 * The standalone guard: one database, one standalone server or one cluster. Real processes
 * (`switchboard serve`), since a refusal is an exit code and a crash is kill -9.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { DEFAULTS } from '../../src/server/config.js';
import { startServer } from '../../src/server/serve.js';
import Database from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { CLUSTER_PROTOCOL } from '../../src/core/cluster.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { DatabaseHeldError } from '../../src/store/holder-guard.js';
import { runCli as runCliWithin } from '../helpers/cli.js';
import { clusterEnv, freshDatabase, startNodeProcess, uniqueName } from '../helpers/cluster.js';
import { NATS_URL } from '../helpers/cluster-engines.js';

/** The CLI from source: a cold tsx start on a loaded machine can take long before it refuses. */
const runCli = (args: string[]) => runCliWithin(args, {}, 90_000);

/** A refusal: exit code 2 and exactly one line. */
function assertRefused(r: { code: number | null; stdout: string; stderr: string }, names: RegExp): void {
  assert.equal(r.code, 2, `exit code (stderr: ${r.stderr})`);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, names);
}

/** The database as the release before 0010 left it: migrated through 0009. */
async function migrateThrough0009(k: Kysely<unknown>): Promise<void> {
  const all = await migrationProvider.getMigrations();
  const through0009 = Object.fromEntries(Object.entries(all).filter(([name]) => name < '0010'));
  const migrated = await new Migrator({
    db: k,
    provider: { getMigrations: async () => through0009 },
    allowUnorderedMigrations: true,
  }).migrateToLatest();
  assert.equal(migrated.error, undefined);
}

describe('the guard on a SQLite file', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-guard-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a second server on the same file, and seed, refuse naming the holder; after kill -9 a restart is at once', async () => {
    const db = join(dir, 'guard.db');
    const a = await startNodeProcess(['--db', db, '--node-id', 'holder-a'], 'holder-a');
    try {
      const second = await runCli(['serve', '--port', '0', '--db', db]);
      assertRefused(second, /in use by standalone server holder-a \(pid \d+ on .+\).*stop it first/);
      assertRefused(await runCli(['seed', '--db', db]), /in use by standalone server holder-a/);
      await a.kill('SIGKILL');
      const t0 = performance.now();
      const b = await startNodeProcess(['--db', db, '--node-id', 'holder-b'], 'holder-b');
      assert.ok(performance.now() - t0 < 30_000);
      await b.stop();
      // A graceful stop lets go too: seed now runs.
      const seeded = await runCli(['seed', '--db', db]);
      assert.equal(seeded.code, 0, seeded.stderr);
    } finally {
      await a.stop();
    }
  });

  it('a server refused on a file a running server of an older release holds leaves it unmigrated', async () => {
    const file = join(dir, 'older.db');
    const k = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
    const holder = spawn('sleep', ['60']);
    try {
      await migrateThrough0009(k);
      // The older release's server, alive on this host, holds the file.
      await sql`insert into standalone_holder (slot, node_id, host, pid, started_at, heartbeat_at)
        values ('standalone', 'older', ${hostname()}, ${holder.pid}, ${Date.now()}, ${Date.now()})`.execute(
        k,
      );
      assertRefused(
        await runCli(['serve', '--port', '0', '--db', file]),
        new RegExp(`in use by standalone server older \\(pid ${holder.pid} on .+\\).*stop it first`),
      );
      const ran = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(k);
      assert.equal(ran.rows.at(-1)?.name.slice(0, 4), '0009', 'the refused server did not migrate the file');
    } finally {
      holder.kill();
      await k.destroy();
    }
  });

  it('in one process: a second server on the same file is refused; once the first stops, a third starts', async () => {
    const db = join(dir, 'inproc.db');
    const config = { ...DEFAULTS, port: 0, db, logLevel: 'silent', clock: 'virtual' as const };
    const first = await startServer({ ...config, nodeId: 'first' }, pino({ level: 'silent' }));
    try {
      await assert.rejects(
        startServer({ ...config, nodeId: 'second' }, pino({ level: 'silent' })),
        (e: unknown) => e instanceof DatabaseHeldError && /standalone server first/.test(e.message),
      );
    } finally {
      await first.close();
    }
    const third = await startServer({ ...config, nodeId: 'third' }, pino({ level: 'silent' }));
    await third.close();
  });

  it('separate files never collide (every test server has its own)', async () => {
    const config = { ...DEFAULTS, port: 0, logLevel: 'silent', clock: 'virtual' as const };
    const servers = await Promise.all(
      [1, 2, 3].map((i) =>
        startServer({ ...config, db: join(dir, `own-${i}.db`) }, pino({ level: 'silent' })),
      ),
    );
    await Promise.all(servers.map((s) => s.close()));
  });
});

const env = await clusterEnv();

describe('the guard on PostgreSQL', { skip: env.skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  before(async () => {
    database = await freshDatabase();
  });
  after(async () => database?.drop());

  it('standalone vs standalone, and a cluster node vs a standalone holder: refused, naming it; a crash frees it at once', async () => {
    const url = database.url;
    const cluster = uniqueName('g').replace(/_/g, '-');
    const a = await startNodeProcess(['--database-url', url, '--node-id', 'pg-a'], 'pg-a');
    try {
      assertRefused(
        await runCli(['serve', '--port', '0', '--database-url', url]),
        /in use by standalone server pg-a \(pid \d+ on .+\)/,
      );
      assertRefused(
        await runCli([
          'serve',
          '--port',
          '0',
          '--database-url',
          url,
          '--nats',
          NATS_URL,
          '--cluster-name',
          cluster,
        ]),
        /in use by standalone server pg-a/,
      );
      assertRefused(await runCli(['seed', '--database-url', url]), /in use by standalone server pg-a/);
    } finally {
      await a.kill('SIGKILL');
    }
    // PostgreSQL dropped the crashed holder's lock with its connection: a cluster node starts now.
    const args = ['--database-url', url, '--nats', NATS_URL, '--cluster-name', cluster, '--node-id', 'c1'];
    const c1 = await startNodeProcess(args, 'c1');
    try {
      assertRefused(
        await runCli(['serve', '--port', '0', '--database-url', url]),
        /in use by a cluster \(nodes c1\); a standalone server cannot share it/,
      );
      // A second cluster node shares the database.
      const c2 = await startNodeProcess([...args.slice(0, -1), 'c2'], 'c2');
      await c2.stop();
    } finally {
      await c1.stop();
    }
    // Both nodes left gracefully (rows removed, locks dropped): a standalone server starts.
    const s = await startNodeProcess(['--database-url', url, '--node-id', 'pg-s'], 'pg-s');
    await s.stop();
  });

  it('a cluster node that cannot reach NATS ends in one line, and leaves nothing behind', async () => {
    const args = ['--database-url', database.url, '--nats', 'nats://127.0.0.1:1', '--node-id', 'lonely'];
    assertRefused(
      await runCli(['serve', '--port', '0', ...args]),
      /NATS not reachable \(nats:\/\/127\.0\.0\.1:1\)/,
    );
    // Its shared hold was released: a standalone server may start.
    const s = await startNodeProcess(['--database-url', database.url, '--node-id', 'after'], 'after');
    await s.stop();
  });

  it('a node of the next cluster protocol is refused while one of the previous runs, leaving its database unmigrated; it starts once that node left', async () => {
    const previous = await freshDatabase();
    // The database as the previous release left it: migrated through 0009, one node alive,
    // registered before nodes recorded their protocol.
    const pool = new pg.Pool({ connectionString: previous.url, max: 1 });
    const k = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateThrough0009(k);
      const nowMs = sql`(extract(epoch from clock_timestamp()) * 1000)::bigint`;
      await sql`insert into cluster_nodes (node_id, url, host, pid, slot, ttl_ms, eligible, started_at, heartbeat_at)
        values ('old-release', null, 'elsewhere', 4242, 0, 60000, 1, ${nowMs}, ${nowMs})`.execute(k);
      const ran = async () =>
        (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(k)).rows.map(
          (r) => r.name.slice(0, 4),
        );

      const cluster = uniqueName('g').replace(/_/g, '-');
      const args = ['--database-url', previous.url, '--nats', NATS_URL, '--cluster-name', cluster];
      assertRefused(
        await runCli(['serve', '--port', '0', ...args, '--node-id', 'new-release']),
        new RegExp(
          `node old-release \\(pid 4242 on elsewhere\\) runs cluster protocol 1 and this node ${CLUSTER_PROTOCOL}: .*stop every node of the other release`,
        ),
      );
      assert.equal((await ran()).at(-1), '0009', 'the refused node did not migrate the database');
      // A standalone server (no --nats) is refused by the same live node, before migrating too.
      assertRefused(
        await runCli(['serve', '--port', '0', '--database-url', previous.url]),
        /in use by a cluster \(nodes old-release\); a standalone server cannot share it/,
      );
      assert.equal((await ran()).at(-1), '0009', 'nor did the refused standalone server');

      // The old node leaves (a stop removes its row): the new release migrates and starts.
      await sql`delete from cluster_nodes where node_id = 'old-release'`.execute(k);
      const fresh = await startNodeProcess([...args, '--node-id', 'new-release'], 'new-release');
      await fresh.stop();
      const latest = Object.keys(await migrationProvider.getMigrations())
        .sort()
        .at(-1)!;
      assert.equal((await ran()).at(-1), latest.slice(0, 4));
    } finally {
      await k.destroy();
      await previous.drop();
    }
  });

  it('a cluster node whose node id is a live node’s is refused', async () => {
    const cluster = uniqueName('g').replace(/_/g, '-');
    const args = [
      '--database-url',
      database.url,
      '--nats',
      NATS_URL,
      '--cluster-name',
      cluster,
      '--node-id',
      'twin',
    ];
    const first = await startNodeProcess(args, 'twin');
    try {
      assertRefused(await runCli(['serve', '--port', '0', ...args]), /node id twin is in use by a live node/);
    } finally {
      await first.stop();
    }
  });
});

describe('cluster flags', () => {
  it('--nats without --database-url is refused in one line', async () => {
    assertRefused(
      await runCli(['serve', '--nats', 'nats://127.0.0.1:4222']),
      /--nats \(cluster mode\) needs --database-url/,
    );
  });

  it('a node id or cluster name that cannot be a NATS subject token is refused', async () => {
    assertRefused(await runCli(['serve', '--node-id', 'a.b']), /--node-id: "a.b" must be/);
    assertRefused(await runCli(['serve', '--cluster-name', 'x y']), /--cluster-name: "x y" must be/);
    assertRefused(await runCli(['serve', '--nats', 'http://x']), /is not a NATS URL/);
  });
});
