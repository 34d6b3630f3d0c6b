import { type Db, openDatabase } from '../../src/store/database.js';
import { PG_URL } from './cluster-engines.js';
import { uniqueName } from './cluster.js';

/** A migrated database in a schema of its own on the test PostgreSQL; drop() removes both. */
export async function freshSchemaDb(): Promise<{ db: Db; schema: string; drop(): Promise<void> }> {
  const schema = uniqueName('sb_s');
  const db = await openDatabase({ kind: 'postgres', url: PG_URL, schema });
  return {
    db,
    schema,
    async drop() {
      await db.close().catch(() => {});
      const pg = await import('pg');
      const c = new pg.default.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
}
