import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';
import { normalizeNumber } from '../../directory/directory.js';

/**
 * Bounded reads of the call history (issue 19): the contact center's call list reads its newest
 * window through (tenant, start, id), and the call search finds the newest match through an index
 * on the calling or the called number instead of filtering the newest 5,000 records in memory.
 *
 * The search compares the numbers the contact center shows (for a call it held, its own calling
 * and called numbers; otherwise the switch's from and to) as digits, so they are stored as digits.
 * Existing rows are filled in from their JSON here, in batches, once.
 */
export const callRecordWindows: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('call_records')
      .addColumn('calling_key', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute();
    await db.schema
      .alterTable('call_records')
      .addColumn('called_key', 'varchar(64)', (c) => c.notNull().defaultTo(''))
      .execute();
    await backfill(db as Kysely<Rows>);
    await db.schema.dropIndex('call_records_tenant_time').execute();
    await db.schema
      .createIndex('call_records_tenant_recent')
      .on('call_records')
      .columns(['tenant_id', 'started_at', 'smdr_call_id'])
      .execute();
    await db.schema
      .createIndex('call_records_tenant_calling')
      .on('call_records')
      .columns(['tenant_id', 'calling_key', 'started_at', 'smdr_call_id'])
      .execute();
    await db.schema
      .createIndex('call_records_tenant_called')
      .on('call_records')
      .columns(['tenant_id', 'called_key', 'started_at', 'smdr_call_id'])
      .execute();
    // Both numbers: a pair that is rare among two common numbers must not walk either one's calls.
    await db.schema
      .createIndex('call_records_tenant_pair')
      .on('call_records')
      .columns(['tenant_id', 'calling_key', 'called_key', 'started_at', 'smdr_call_id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const i of [
      'call_records_tenant_pair',
      'call_records_tenant_called',
      'call_records_tenant_calling',
      'call_records_tenant_recent',
    ])
      await db.schema.dropIndex(i).ifExists().execute();
    await db.schema
      .createIndex('call_records_tenant_time')
      .on('call_records')
      .columns(['tenant_id', 'started_at'])
      .execute();
    await db.schema.alterTable('call_records').dropColumn('called_key').execute();
    await db.schema.alterTable('call_records').dropColumn('calling_key').execute();
  },
};

interface Rows {
  call_records: {
    smdr_call_id: string;
    from_number: string;
    to_number: string;
    data: string;
    calling_key: string;
    called_key: string;
  };
}

/** As the record was written then: the contact center's numbers when it held the call. */
function keysOf(row: Rows['call_records']): { calling_key: string; called_key: string } {
  let cc: { calling?: { number?: unknown }; called?: { number?: unknown } } | undefined;
  try {
    cc = (JSON.parse(row.data) as { cc?: typeof cc }).cc;
  } catch {
    cc = undefined;
  }
  const pick = (n: unknown, fallback: string) =>
    normalizeNumber(typeof n === 'string' ? n : fallback).slice(0, 64);
  return {
    calling_key: pick(cc?.calling?.number, row.from_number),
    called_key: pick(cc?.called?.number, row.to_number),
  };
}

async function backfill(db: Kysely<Rows>): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('call_records')
      .selectAll()
      .where('smdr_call_id', '>', after)
      .orderBy('smdr_call_id')
      .limit(1000)
      .execute();
    if (!rows.length) return;
    const update = async (tx: Kysely<Rows>) => {
      for (const r of rows)
        await tx
          .updateTable('call_records')
          .set(keysOf(r))
          .where('smdr_call_id', '=', r.smdr_call_id)
          .execute();
    };
    // PostgreSQL runs migrations in a transaction already; SQLite's batch gets its own.
    if (db.isTransaction) await update(db);
    else await db.transaction().execute(update);
    after = rows[rows.length - 1].smdr_call_id;
  }
}
