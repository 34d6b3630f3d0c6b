/**
 * Start-up steps that must not run on two nodes at once (seeding an empty database: two nodes
 * of a cluster started together would both write the demo world). PostgreSQL: a session advisory
 * lock on one reserved connection of the pool, keyed by the schema, held while `fn` runs and
 * dropped by PostgreSQL if the process dies. SQLite has one server per file (the guard): no lock.
 */
import { sql } from 'kysely';
import type { Db } from './database.js';

export async function duringStartup<T>(db: Db, fn: () => Promise<T>): Promise<T> {
  if (db.dialect !== 'postgres') return fn();
  const key = sql`hashtext('switchboard-startup'), hashtext(current_schema())`;
  return db.kysely.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${key})`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn).catch(() => {});
    }
  });
}
