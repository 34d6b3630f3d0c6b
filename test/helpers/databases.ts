import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseTarget } from '../../src/store/database.js';

/**
 * The dialects every storage test runs on: SQLite, and PostgreSQL — the real server at
 * SWITCHBOARD_TEST_PG_URL when set (CI sets it), otherwise embedded PGlite.
 */
export function testTargets(): { name: string; target: () => DatabaseTarget }[] {
  const pgUrl = process.env.SWITCHBOARD_TEST_PG_URL;
  return [
    {
      name: 'sqlite',
      target: () => ({ kind: 'sqlite', file: join(mkdtempSync(join(tmpdir(), 'sb-db-')), 't.db') }),
    },
    pgUrl
      ? {
          name: 'postgres (server)',
          target: () => ({ kind: 'postgres', url: pgUrl, schema: freshSchema(pgUrl) }),
        }
      : {
          name: 'postgres (pglite)',
          target: () => ({ kind: 'pglite', dataDir: mkdtempSync(join(tmpdir(), 'sb-pglite-')) }),
        },
  ];
}

let n = 0;
const created: { url: string; schema: string }[] = [];

/** A per-test schema on the shared server, so runs never see each other's tables. */
function freshSchema(url: string): string {
  const schema = `sb_test_${process.pid}_${Date.now()}_${n++}`;
  created.push({ url, schema });
  return schema;
}

/** Drops the schemas this process created. */
export async function dropSchemas(): Promise<void> {
  if (!created.length) return;
  const pg = await import('pg');
  for (const { url, schema } of created.splice(0)) {
    const c = new pg.default.Client({ connectionString: url });
    await c.connect();
    await c.query(`drop schema if exists ${schema} cascade`);
    await c.end();
  }
}
