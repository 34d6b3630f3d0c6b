/**
 * Migration names and the migrator (docs/decisions.md, "Migration 0008_live_calls"): a database
 * that ran 0005 and 0007 before 0004 existed opens, and gets 0004 and then 0008 to 0014; new migrations
 * sort after every existing one, so a database that has 0007 gets the live-state tables.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { DatabaseError, openDatabase } from '../../../src/store/database.js';
import { migrationProvider } from '../../../src/store/migrations/index.js';

test('migration names are unique and the newest sorts last', async () => {
  const names = Object.keys(await migrationProvider.getMigrations());
  const sorted = [...names].sort();
  assert.equal(new Set(names.map((n) => n.slice(0, 4))).size, names.length, 'one migration per number');
  assert.equal(sorted.at(-1), '0014_auth_guesses');
});

test('a database that ran 0005 and 0007 without 0004 opens and gets 0004, then 0008 to 0014', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-mig-')), 'old.db');
  const all = await migrationProvider.getMigrations();
  const older = Object.fromEntries(
    Object.entries(all).filter(([name]) =>
      ['0001', '0002', '0003', '0005', '0007'].includes(name.slice(0, 4)),
    ),
  );
  const old = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  const first = await new Migrator({
    db: old,
    provider: { getMigrations: async () => older },
  }).migrateToLatest();
  assert.equal(first.error, undefined);
  await old.destroy();

  const db = await openDatabase({ kind: 'sqlite', file });
  try {
    const ran = await db.kysely
      .selectFrom('kysely_migration' as never)
      .select(['name' as never])
      .orderBy('timestamp' as never)
      .orderBy('name' as never)
      .execute();
    assert.deepEqual(
      (ran as { name: string }[]).map((r) => r.name.slice(0, 4)),
      [
        '0001',
        '0002',
        '0003',
        '0005',
        '0007',
        '0004',
        '0008',
        '0009',
        '0010',
        '0011',
        '0012',
        '0013',
        '0014',
      ],
    );
    assert.deepEqual(await db.kysely.selectFrom('live_calls').selectAll().execute(), []);
    assert.deepEqual(await db.kysely.selectFrom('cc_agent_states').selectAll().execute(), []);
    assert.deepEqual(await db.kysely.selectFrom('live_call_history').selectAll().execute(), []);
  } finally {
    await db.close();
  }
});

test('a database a newer release migrated is refused in one line that says so', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-mig-')), 'newer.db');
  const all = await migrationProvider.getMigrations();
  const newer = new Kysely<unknown>({ dialect: new SqliteDialect({ database: new Database(file) }) });
  const ran = await new Migrator({
    db: newer,
    provider: {
      getMigrations: async () => ({ ...all, '9999_from_the_future': { up: async () => {} } }),
    },
    allowUnorderedMigrations: true,
  }).migrateToLatest();
  assert.equal(ran.error, undefined);
  await newer.destroy();

  await assert.rejects(
    openDatabase({ kind: 'sqlite', file }),
    (e: Error) =>
      e instanceof DatabaseError &&
      !e.message.includes('\n') &&
      /the database has migration 9999_from_the_future, which this release does not know; a newer release migrated it/.test(
        e.message,
      ),
  );
});
