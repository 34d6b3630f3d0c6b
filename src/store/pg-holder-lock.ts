/**
 * The guard on PostgreSQL (holder-guard.ts): an advisory lock held on a connection of its own,
 * exclusive for a standalone server and shared for cluster nodes, keyed by the schema the server
 * uses. PostgreSQL releases it when that connection ends, so a crashed holder blocks no one (the
 * connection sets TCP keepalives, so even a vanished host is noticed within about 30 s). If the
 * connection drops while the server runs, the lock is taken again; if someone else got in
 * meanwhile, that is logged as an error.
 */
import type { Client } from 'pg';
import { type Kysely, sql } from 'kysely';
import { type DatabaseTarget, type Db, describe, tableExists } from './database.js';
import {
  DatabaseHeldError,
  type DatabaseHold,
  type GuardLog,
  type HolderIdentity,
  holderText,
} from './database-held.js';
import { DB_NOW_MS } from './leases.js';
import type { Database } from './schema.js';

export type Mode = 'standalone' | 'cluster';
type PgTarget = Extract<DatabaseTarget, { kind: 'postgres' }>;

const RETAKE_MS = 2000;

export async function holdPostgres(
  db: Db,
  target: PgTarget,
  me: HolderIdentity,
  mode: Mode,
  log: GuardLog,
): Promise<DatabaseHold> {
  let client = await lockConnection(target);
  if (!(await tryLock(client, mode))) {
    await client.end().catch(() => {});
    throw new DatabaseHeldError(await refusal(db.kysely, target, mode));
  }
  if (mode === 'standalone') {
    const nodes = await liveClusterNodes(db.kysely);
    if (nodes.length) {
      await client.end().catch(() => {});
      throw new DatabaseHeldError(clusterRefusal(target, nodes));
    }
    await sql`insert into standalone_holder (slot, node_id, host, pid, started_at, heartbeat_at)
      values ('standalone', ${me.nodeId}, ${me.host}, ${me.pid}, ${DB_NOW_MS}, ${DB_NOW_MS})
      on conflict (slot) do update set node_id = excluded.node_id, host = excluded.host,
        pid = excluded.pid, started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at`.execute(
      db.kysely,
    );
  }
  let closed = false;
  let retake: NodeJS.Timeout | undefined;
  const watch = (c: Client) => {
    c.on('error', () => {});
    c.on('end', () => {
      if (closed) return;
      log.warn({}, 'database guard: its connection ended; taking the lock again');
      retake = setTimeout(again, RETAKE_MS);
      retake.unref();
    });
  };
  const again = async () => {
    try {
      const c = await lockConnection(target);
      if (closed) return void (await c.end());
      if (await tryLock(c, mode)) {
        client = c;
        watch(c);
        return;
      }
      await c.end();
      log.error(
        {},
        `database guard: lost the database to another server: ${await refusal(db.kysely, target, mode)}`,
      );
    } catch {
      retake = setTimeout(again, RETAKE_MS);
      retake.unref();
    }
  };
  watch(client);
  return {
    async release() {
      closed = true;
      clearTimeout(retake);
      if (mode === 'standalone') {
        await db.kysely
          .deleteFrom('standalone_holder')
          .where('node_id', '=', me.nodeId)
          .execute()
          .catch(() => {});
      }
      await client.end().catch(() => {});
    },
  };
}

/**
 * Before migrating: refuses as `holdPostgres` would, taking nothing (the lock is tried on a
 * connection that ends at once). The database may not have the guard's tables yet.
 */
export async function refuseHeldPostgres(k: Kysely<Database>, target: PgTarget, mode: Mode): Promise<void> {
  const client = await lockConnection(target);
  try {
    if (!(await tryLock(client, mode))) throw new DatabaseHeldError(await refusal(k, target, mode));
    const nodes = mode === 'standalone' ? await liveClusterNodes(k) : [];
    if (nodes.length) throw new DatabaseHeldError(clusterRefusal(target, nodes));
  } finally {
    await client.end().catch(() => {});
  }
}

async function lockConnection(target: PgTarget): Promise<Client> {
  const pg = await import('pg');
  const client = new pg.default.Client({
    connectionString: target.url,
    connectionTimeoutMillis: 5000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    // The server side notices a vanished client within about 30 s, and drops its lock.
    await client.query(
      'set tcp_keepalives_idle = 10; set tcp_keepalives_interval = 5; set tcp_keepalives_count = 4',
    );
    if (target.schema) await client.query(`set search_path to ${target.schema}`);
  } catch (e) {
    await client.end().catch(() => {});
    throw e;
  }
  return client;
}

async function tryLock(client: Client, mode: Mode): Promise<boolean> {
  const fn = mode === 'standalone' ? 'pg_try_advisory_lock' : 'pg_try_advisory_lock_shared';
  const { rows } = await client.query<{ ok: boolean }>(
    `select ${fn}(hashtext('switchboard-holder'), hashtext(current_schema())) as ok`,
  );
  return rows[0]?.ok === true;
}

async function refusal(k: Kysely<Database>, target: PgTarget, mode: Mode): Promise<string> {
  if (mode === 'standalone') {
    const nodes = await liveClusterNodes(k);
    if (nodes.length) return clusterRefusal(target, nodes);
  }
  const row = (await tableExists(k, 'standalone_holder', 'postgres'))
    ? await k.selectFrom('standalone_holder').selectAll().executeTakeFirst()
    : undefined;
  const who = row ? holderText(row) : mode === 'standalone' ? 'another server' : 'a standalone server';
  return `${named(target)} is in use by ${who}; stop it first`;
}

/** The database (and schema, when not the default) named in a refusal. */
function named(target: PgTarget): string {
  return target.schema ? `${describe(target)} (schema ${target.schema})` : describe(target);
}

function clusterRefusal(target: PgTarget, nodes: string[]): string {
  const shown = nodes.slice(0, 3).join(', ') + (nodes.length > 3 ? `, +${nodes.length - 3} more` : '');
  return `${named(target)} is in use by a cluster (nodes ${shown}); a standalone server cannot share it`;
}

async function liveClusterNodes(k: Kysely<Database>): Promise<string[]> {
  if (!(await tableExists(k, 'cluster_nodes', 'postgres'))) return [];
  const { rows } = await sql<{ node_id: string }>`
    select node_id from cluster_nodes where heartbeat_at + ttl_ms > ${DB_NOW_MS} order by node_id`.execute(k);
  return rows.map((r) => r.node_id);
}
