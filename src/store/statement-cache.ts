import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * SQLite for Kysely with its prepared statements kept by SQL text. Kysely's SQLite driver calls
 * `prepare` for every query it runs, and better-sqlite3 compiles the statement again each time:
 * the largest single item (10 % of the busy time) in the profile of the contact-center call
 * reads, which run the same few statements on every request (issue 19). A statement is reused
 * only when it is not still being iterated (`busy`); SQLite itself prepares a kept statement
 * again when the schema changes under it. The set is bounded: past `max` texts it starts over.
 */
export function keepingStatements(
  db: SqliteDatabase & { prepare(sql: string): SqliteStatement & { busy?: boolean } },
  max = 256,
): SqliteDatabase {
  const kept = new Map<string, SqliteStatement & { busy?: boolean }>();
  return {
    prepare(sql) {
      const known = kept.get(sql);
      if (known && !known.busy) return known;
      const stmt = db.prepare(sql);
      if (!known) {
        if (kept.size >= max) kept.clear();
        kept.set(sql, stmt);
      }
      return stmt;
    },
    close() {
      kept.clear();
      db.close();
    },
  };
}
