/**
 * The standalone guard (docs/cluster.md § The guard): a database is run by one standalone server,
 * or by the nodes of one cluster, never by a mix. Two standalone servers on one database would
 * each keep their own live state and silently diverge (a DND set on one unseen on the other).
 *
 * - SQLite: the holder writes its row (node id, host, pid) in `standalone_holder` and refreshes
 *   it every 2 s. Another server refuses while that row is fresh and its process alive; a crashed
 *   holder's row is taken over at once on the same host (its pid is gone), else after 6 s.
 * - PostgreSQL: an advisory lock on a connection of its own, keyed by the schema: exclusive for a
 *   standalone server, shared for cluster nodes; PostgreSQL drops it when the holder's connection
 *   ends, crash included. The row only names the holder in the refusal. A standalone server also
 *   refuses while cluster nodes heartbeat (`cluster_nodes`).
 *
 * A refusal is a `DatabaseHeldError` (a DatabaseError: one line, exit code 2).
 */
import { hostname } from 'node:os';
import type { Kysely } from 'kysely';
import { type DatabaseTarget, type Db, DatabaseError, describe, tableExists } from './database.js';
import { DatabaseHeldError, type DatabaseHold, type GuardLog, type HolderIdentity } from './database-held.js';
import { holderText, processAlive } from './database-held.js';
import { holdPostgres, type Mode, refuseHeldPostgres } from './pg-holder-lock.js';
import type { Database } from './schema.js';

export { DatabaseHeldError, type DatabaseHold, type HolderIdentity } from './database-held.js';

export const HEARTBEAT_MS = 2000;
/** A SQLite holder's row this old is stale (three missed heartbeats). */
export const STALE_MS = 3 * HEARTBEAT_MS;

const SLOT = 'standalone';
/** Holders alive in this very process (in-process servers, tests): their pid is this one. */
const heldHere = new Set<string>();

export const thisHolder = (nodeId: string): HolderIdentity => ({
  nodeId,
  host: hostname(),
  pid: process.pid,
});

/** A standalone server takes the database, or refuses naming who has it. */
export async function holdAsStandalone(
  db: Db,
  target: DatabaseTarget,
  me: HolderIdentity,
  log: GuardLog,
): Promise<DatabaseHold> {
  if (target.kind === 'pglite' || (target.kind === 'sqlite' && target.file === ':memory:')) {
    return { release: async () => {} };
  }
  if (target.kind === 'postgres') return holdPostgres(db, target, me, 'standalone', log);
  return holdSqlite(db, target, me, log);
}

/** A cluster node shares the database with other nodes; refuses while a standalone server holds it. */
export async function holdAsClusterNode(
  db: Db,
  target: DatabaseTarget,
  me: HolderIdentity,
  log: GuardLog,
): Promise<DatabaseHold> {
  if (target.kind !== 'postgres') throw new DatabaseError('cluster mode needs PostgreSQL (--database-url)');
  return holdPostgres(db, target, me, 'cluster', log);
}

/**
 * Before this release migrates the database: refuses, as the hold of `mode` would, while another
 * server holds it, and takes nothing (the hold needs the migrated tables; it is taken after). So
 * a server started on a database that a running cluster or standalone server uses, a newer
 * release's included, leaves it as it was.
 */
export async function refuseHeldDatabase(
  k: Kysely<Database>,
  target: DatabaseTarget,
  me: HolderIdentity,
  mode: Mode,
): Promise<void> {
  if (target.kind === 'postgres') return refuseHeldPostgres(k, target, mode);
  if (target.kind !== 'sqlite' || target.file === ':memory:') return;
  if (!(await tableExists(k, 'standalone_holder', 'sqlite'))) return;
  const row = await k.selectFrom('standalone_holder').selectAll().where('slot', '=', SLOT).executeTakeFirst();
  const now = Date.now();
  if (row && !isStale(row, me, now)) throw new DatabaseHeldError(heldText(target, row, now));
}

/** The refusal of a SQLite database whose holder's row is fresh. */
function heldText(
  target: DatabaseTarget,
  row: { node_id: string; host: string; pid: number; heartbeat_at: number },
  now: number,
): string {
  const age = Math.max(0, Math.round((now - Number(row.heartbeat_at)) / 1000));
  return `${describe(target)} is in use by ${holderText(row)}, last seen ${age} s ago; stop it first`;
}

async function holdSqlite(
  db: Db,
  target: DatabaseTarget,
  me: HolderIdentity,
  log: GuardLog,
): Promise<DatabaseHold> {
  const k = db.kysely;
  const mine = { slot: SLOT, node_id: me.nodeId, host: me.host, pid: me.pid };
  for (let attempt = 0; ; attempt++) {
    const now = Date.now();
    const row = await k
      .selectFrom('standalone_holder')
      .selectAll()
      .where('slot', '=', SLOT)
      .executeTakeFirst();
    if (row && !isStale(row, me, now)) throw new DatabaseHeldError(heldText(target, row, now));
    const values = { ...mine, started_at: now, heartbeat_at: now };
    // Compare-and-set on what was read, so two servers starting together cannot both win.
    const res = row
      ? await k
          .updateTable('standalone_holder')
          .set(values)
          .where('slot', '=', SLOT)
          .where('node_id', '=', row.node_id)
          .where('heartbeat_at', '=', row.heartbeat_at)
          .executeTakeFirst()
      : await k
          .insertInto('standalone_holder')
          .values(values)
          .onConflict((oc) => oc.column('slot').doNothing())
          .executeTakeFirst();
    const changed = Number(
      'numUpdatedRows' in res ? res.numUpdatedRows : (res.numInsertedOrUpdatedRows ?? 0),
    );
    if (changed === 1) break;
    if (attempt >= 3) throw new DatabaseHeldError(`${describe(target)}: another server is starting on it`);
  }
  heldHere.add(me.nodeId);
  const beat = setInterval(() => {
    k.updateTable('standalone_holder')
      .set({ heartbeat_at: Date.now() })
      .where('slot', '=', SLOT)
      .where('node_id', '=', me.nodeId)
      .executeTakeFirst()
      .then((r) => {
        if (Number(r.numUpdatedRows) === 0) {
          log.error({ nodeId: me.nodeId }, 'standalone guard: another server took this database over');
        }
      })
      .catch((err) => log.warn({ err }, 'standalone guard: heartbeat failed'));
  }, HEARTBEAT_MS);
  beat.unref();
  return {
    async release() {
      clearInterval(beat);
      heldHere.delete(me.nodeId);
      await k
        .deleteFrom('standalone_holder')
        .where('slot', '=', SLOT)
        .where('node_id', '=', me.nodeId)
        .execute()
        .catch(() => {});
    },
  };
}

/** Whether a SQLite holder's row no longer stands for a running server. */
function isStale(
  row: { node_id: string; host: string; pid: number; heartbeat_at: number },
  me: HolderIdentity,
  now: number,
): boolean {
  if (now - Number(row.heartbeat_at) > STALE_MS) return true;
  if (row.host !== me.host) return false;
  if (row.pid === me.pid) return !heldHere.has(row.node_id);
  return !processAlive(row.pid);
}
