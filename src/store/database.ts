import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PGliteDialect, PostgresDialect, SqliteDialect, sql } from 'kysely';
import { keepingStatements } from './statement-cache.js';
import { Migrator } from 'kysely/migration';
import { migrationProvider } from './migrations/index.js';
import type { Database } from './schema.js';

export type DatabaseTarget =
  | { kind: 'sqlite'; file: string }
  | {
      kind: 'postgres';
      url: string /** Use this schema instead of public (created if missing). */;
      schema?: string;
    }
  | { kind: 'pglite'; dataDir?: string };

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: Dialect;
  /** Is the database answering? */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class DatabaseError extends Error {}

/** Whether `table` is in the database's schema yet (one this release has not migrated may lack it). */
export async function tableExists(k: Kysely<Database>, table: string, dialect: Dialect): Promise<boolean> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from sqlite_master where type = 'table' and name = ${table}`.execute(k);
    return Number(rows[0]?.n) > 0;
  }
  const { rows } = await sql<{ t: string | null }>`select to_regclass(${table})::text as t`.execute(k);
  return !!rows[0]?.t;
}

export interface OpenOptions {
  /** Runs on the database before any migration; a throw leaves it unmigrated and is the open's. */
  beforeMigrating?: (kysely: Kysely<Database>) => Promise<void>;
}

/** Opens the database, runs pending migrations, and answers once it is usable. */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<Db> {
  const { kysely, dialect } = await connect(target);
  try {
    await kysely.selectNoFrom(sql<number>`1`.as('one')).execute();
  } catch (e) {
    await kysely.destroy().catch(() => {});
    throw new DatabaseError(`database not reachable (${describe(target)}): ${(e as Error).message}`);
  }
  if (options.beforeMigrating) {
    try {
      await options.beforeMigrating(kysely);
    } catch (e) {
      await kysely.destroy().catch(() => {});
      throw e;
    }
  }
  const schema = target.kind === 'postgres' ? target.schema : undefined;
  const migrator = new Migrator({
    db: kysely,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
    // 0004 was added after 0005 and 0007 had run on some databases: a pending migration whose
    // name sorts before the last one executed still runs (in name order) instead of failing.
    // Names are never reused; new ones sort after every existing one (docs/decisions.md).
    allowUnorderedMigrations: true,
  });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await kysely.destroy().catch(() => {});
    const message = (error as Error).message ?? String(error);
    // Kysely's words for a migration the database ran that this release does not have.
    const newer = /previously executed migration (\S+) is missing/.exec(message)?.[1];
    throw new DatabaseError(
      newer
        ? `database migration failed: the database has migration ${newer}, which this release does not know; a newer release migrated it, and an older one cannot run on it (docs/cluster.md § Upgrading)`
        : `database migration failed: ${message}`,
    );
  }
  return {
    kysely,
    dialect,
    async ping() {
      try {
        await kysely.selectNoFrom(sql<number>`1`.as('one')).execute();
        return true;
      } catch {
        return false;
      }
    },
    close: () => kysely.destroy(),
  };
}

async function connect(target: DatabaseTarget): Promise<{ kysely: Kysely<Database>; dialect: Dialect }> {
  if (target.kind === 'sqlite') {
    const { default: SQLite } = await import('better-sqlite3');
    let handle: InstanceType<typeof SQLite>;
    try {
      if (target.file !== ':memory:') createPrivately(target.file);
      handle = new SQLite(target.file);
    } catch (e) {
      throw new DatabaseError(`cannot open SQLite database ${target.file}: ${(e as Error).message}`);
    }
    handle.pragma('journal_mode = WAL');
    handle.pragma('synchronous = NORMAL');
    handle.pragma('busy_timeout = 5000');
    return {
      kysely: new Kysely<Database>({ dialect: new SqliteDialect({ database: keepingStatements(handle) }) }),
      dialect: 'sqlite',
    };
  }
  if (target.kind === 'postgres') {
    const pg = await import('pg');
    // BIGINT columns hold epoch milliseconds: read them as numbers.
    pg.default.types.setTypeParser(20, (v: string) => Number(v));
    const pool = new pg.default.Pool({
      connectionString: target.url,
      max: 10,
      connectionTimeoutMillis: 5000,
    });
    pool.on('error', () => {});
    const schema = target.schema;
    if (schema) {
      if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new DatabaseError(`invalid schema name ${schema}`);
      pool.on('connect', (client) => {
        client.query(`create schema if not exists ${schema}; set search_path to ${schema}`).catch(() => {});
      });
    }
    return { kysely: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), dialect: 'postgres' };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = target.dataDir ? new PGlite(target.dataDir) : new PGlite();
  await pglite.waitReady;
  return {
    kysely: new Kysely<Database>({
      dialect: new PGliteDialect({ pglite }),
      plugins: [],
    }),
    dialect: 'postgres',
  };
}

export function describe(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') return `sqlite:${target.file}`;
  if (target.kind === 'postgres') return target.url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
  return target.dataDir ? `pglite:${target.dataDir}` : 'pglite (in memory)';
}

/**
 * The database holds PIN hashes and token hashes: a new file (and a new folder for it) is
 * readable by its owner only. SQLite gives its journal and WAL files the database file's mode.
 * An existing file keeps the mode its operator gave it.
 */
function createPrivately(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, 'a', 0o600));
}
