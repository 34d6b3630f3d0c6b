import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { type Kysely, sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { CallRecordStore } from '../../../../src/store/call-records.js';
import { type Db, openDatabase } from '../../../../src/store/database.js';
import { migrationProvider } from '../../../../src/store/migrations/index.js';
import type { Database } from '../../../../src/store/schema.js';
import { dropSchemas, testTargets } from '../../../helpers/databases.js';

after(dropSchemas);

/** The plan of a query, as one line per step, on either dialect. */
async function plan(db: Db, query: { sql: string; parameters: readonly unknown[] }): Promise<string> {
  const k = db.kysely as Kysely<unknown>;
  if (db.dialect === 'sqlite') {
    const rows = await sql.raw(`explain query plan ${inline(query)}`).execute(k);
    return (rows.rows as { detail: string }[]).map((r) => r.detail).join('\n');
  }
  // A few rows make a sequential scan the cheaper plan; forbid it to see whether an index serves.
  return k.connection().execute(async (c) => {
    await sql`set enable_seqscan = off`.execute(c);
    const rows = await sql.raw(`explain ${inline(query)}`).execute(c);
    await sql`set enable_seqscan = on`.execute(c);
    return (rows.rows as Record<string, string>[]).map((r) => Object.values(r)[0]).join('\n');
  });
}

/** The query with its parameters written in (numbers and strings only). */
function inline(q: { sql: string; parameters: readonly unknown[] }): string {
  let i = 0;
  const lit = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  return q.sql.replace(/\?|\$\d+/g, (m) => lit(q.parameters[m === '?' ? i++ : Number(m.slice(1)) - 1]));
}

const oldRow = (id: string, from: string, to: string, data: unknown) => ({
  smdr_call_id: id,
  tenant_id: 1001,
  started_at: 1_767_603_600_000 + Number(id),
  answered_at: null,
  ended_at: 1_767_603_660_000 + Number(id),
  from_number: from,
  to_number: to,
  outcome: 'Answered',
  data: JSON.stringify(data),
});

for (const { name, target } of testTargets()) {
  describe(`migration 0004 (call record windows) on ${name}`, () => {
    test('fills the search numbers of existing records from their JSON, as digits', async () => {
      const t = target();
      const first = await openDatabase(t);
      // Back to the schema before 0004, with records written then.
      const migrator = new Migrator({
        db: first.kysely,
        provider: migrationProvider,
        ...(t.kind === 'postgres' && t.schema ? { migrationTableSchema: t.schema } : {}),
      });
      const { error } = await migrator.migrateTo('0003_webhooks');
      assert.equal(error, undefined);
      const k = first.kysely as unknown as Kysely<{ call_records: ReturnType<typeof oldRow> }>;
      await k
        .insertInto('call_records')
        .values([
          oldRow('1', '101', '102', { from: { number: '101' } }),
          oldRow('2', '102', '+1 555 000-5555', {
            cc: { calling: { number: '+1 (555) 555-0150' }, called: { number: '+15550005555' } },
          }),
          oldRow('3', '+15550001111', '+15555550150', 'not an object'),
        ])
        .execute();
      await first.close();

      const db = await openDatabase(t); // migrates to the latest
      const keys = await (db.kysely as Kysely<Database>)
        .selectFrom('call_records')
        .select(['smdr_call_id', 'calling_key', 'called_key'])
        .orderBy('smdr_call_id')
        .execute();
      assert.deepEqual(keys, [
        { smdr_call_id: '1', calling_key: '101', called_key: '102' },
        { smdr_call_id: '2', calling_key: '15555550150', called_key: '15550005555' },
        { smdr_call_id: '3', calling_key: '15550001111', called_key: '15555550150' },
      ]);
      const store = new CallRecordStore(db);
      assert.deepEqual(
        (await store.find({ tenantId: 1001, calling: '+15555550150' })).map((r) => r.smdrCallId),
        ['2'],
      );
      await db.close();
    });

    test('the call list and the call search read through an index, without sorting the history', async () => {
      const db = await openDatabase(target());
      const k = db.kysely;
      const base = () => k.selectFrom('call_records').selectAll().where('tenant_id', '=', 1001);
      const newest = <Q extends ReturnType<typeof base>>(q: Q) =>
        q.orderBy('started_at', 'desc').orderBy('smdr_call_id', 'desc').limit(500).compile();
      const queries = {
        list: newest(base()),
        calling: newest(base().where('calling_key', '=', '101')),
        called: newest(base().where('called_key', '=', '101')),
        ranged: newest(base().where('started_at', '>=', 0).where('started_at', '<=', 1e13)),
        pair: newest(base().where('calling_key', '=', '101').where('called_key', '=', '102')),
      };
      const index = {
        list: 'recent',
        calling: 'calling',
        called: 'called',
        ranged: 'recent',
        pair: 'pair',
      } as const;
      for (const [what, q] of Object.entries(queries)) {
        const p = await plan(db, q);
        if (process.env.SHOW_PLANS) console.log(what, p);
        const name = `call_records_tenant_${index[what as keyof typeof index]}`;
        // The index gives the order too: the window ends at the limit, without sorting the history.
        if (db.dialect === 'sqlite') {
          assert.match(p, new RegExp(`USING (COVERING )?INDEX ${name}\\b`), `${what}: ${p}`);
          assert.doesNotMatch(p, /TEMP B-TREE/, `${what}: ${p}`);
        } else {
          assert.match(p, new RegExp(`Index Scan Backward using ${name}\\b`), `${what}: ${p}`);
          assert.doesNotMatch(p, /^\s*(->\s*)?Sort\b/m, `${what}: ${p}`);
        }
      }
      await db.close();
    });
  });
}
