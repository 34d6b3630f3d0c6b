import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import { normalizeNumber } from '../directory/directory.js';
import { CompiledShapes, excludedOf } from './compiled-shapes.js';
import type { Db } from './database.js';
import type { CallRecordsTable, Database } from './schema.js';

/** A finished call, as the switch reports it. `data` is owned by the writer (switch + contact center). */
export interface CallRecord {
  smdrCallId: string;
  tenantId: number;
  startedAt: number;
  answeredAt: number | null;
  endedAt: number;
  from: string;
  to: string;
  outcome: string;
  /**
   * The calling and called numbers the contact center shows for the call (they differ from `from`
   * and `to` where the contact center held it: an outbound-queue dial shows the queue's caller id).
   * The call search finds records by them, through an index. Absent: `from` and `to`.
   */
  calling?: string;
  called?: string;
  data: Record<string, unknown>;
}

export interface CallRecordQuery {
  tenantId: number;
  /** Records whose calling (called) number is this one, compared as digits (`normalizeNumber`). */
  calling?: string;
  called?: string;
  fromMs?: number;
  toMs?: number;
  /** The window: at most this many, newest first (default and maximum `RECENT_WINDOW`). */
  limit?: number;
}

/**
 * The most records one query reads: the contact center's call list shows the newest this many
 * finished calls of the tenant (docs/conformance.md § 10.6.1). Every query walks an index from its
 * newest end and stops there, so its cost does not grow with the history's length.
 */
export const RECENT_WINDOW = 100;

/** Rows a multi-row INSERT carries (10 parameters a row: well below either dialect's limit). */
const BATCH_ROWS = 500;

type Row = Selectable<CallRecordsTable>;

export class CallRecordStore {
  /** The reads' queries, and the record's write, compiled once per shape (compiled-shapes.ts). */
  private readonly reads: CompiledShapes<Row>;
  private readonly writes: CompiledShapes<unknown>;
  /**
   * Records' `data` as parsed, by id, with the text it was parsed from. Parsing it was the largest
   * item left of the call reads (about 47,000 instructions a record; issue 19), and a finished
   * call's record is read again and again while it is in the newest window. A record rewritten
   * (here or by another node) has another text and is parsed again. Frozen: readers share it.
   */
  private readonly parsed = new Map<string, { text: string; data: Record<string, unknown> }>();

  constructor(private readonly db: Db) {
    this.reads = new CompiledShapes(db.kysely);
    this.writes = new CompiledShapes(db.kysely);
  }

  /** Writes (or rewrites) the record; `into`: a transaction it is part of. */
  async write(r: CallRecord, into: Kysely<Database> = this.db.kysely): Promise<void> {
    const row = toRow(r);
    await this.writes.rows(
      'upsert',
      Object.values(row),
      () =>
        into
          .insertInto('call_records')
          .values(row)
          .onConflict((oc) =>
            // A rewrite sets every column again from the row it was given (no parameters twice).
            oc.column('smdr_call_id').doUpdateSet((eb) => excludedOf(eb, Object.keys(row), ['smdr_call_id'])),
          ),
      into,
    );
  }

  /**
   * Appends many new records in one transaction, as multi-row INSERTs (seeding a history). Ids
   * must be new: unlike `write`, a record that exists already fails the whole call.
   */
  async writeMany(records: Iterable<CallRecord>, trx?: Transaction<Database>): Promise<number> {
    const run = async (tx: Transaction<Database>) => {
      let n = 0;
      let batch: ReturnType<typeof toRow>[] = [];
      const flush = async () => {
        if (batch.length) await tx.insertInto('call_records').values(batch).execute();
        n += batch.length;
        batch = [];
      };
      for (const r of records) {
        batch.push(toRow(r));
        if (batch.length === BATCH_ROWS) await flush();
      }
      await flush();
      return n;
    };
    return trx ? run(trx) : this.db.kysely.transaction().execute(run);
  }

  async get(tenantId: number, smdrCallId: string): Promise<CallRecord | undefined> {
    const [r] = await this.reads.rows('get', [tenantId, smdrCallId], () =>
      this.db.kysely
        .selectFrom('call_records')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('smdr_call_id', '=', smdrCallId),
    );
    return r ? this.toRecord(r) : undefined;
  }

  /**
   * Newest first (start time, then id), at most `RECENT_WINDOW`. Reads through the index that
   * matches the query: (tenant, start, id), or (tenant, calling number, start, id), (tenant, called
   * number, start, id) or (tenant, calling, called, start, id) when numbers are asked for.
   */
  async find(q: CallRecordQuery): Promise<CallRecord[]> {
    const calling = q.calling === undefined ? undefined : normalizeNumber(q.calling);
    const called = q.called === undefined ? undefined : normalizeNumber(q.called);
    const limit = Math.max(0, Math.min(Math.trunc(q.limit ?? RECENT_WINDOW), RECENT_WINDOW));
    // The shape names the clauses present and the window; the parameters follow the clauses in
    // the same order. The window is written into the SQL, not bound: SQLite reads a bound LIMIT's
    // value when it plans, so every run with a fresh binding prepared the statement again (about
    // 17 µs, a third of the query's cost; issue 19). `limit` is one of at most RECENT_WINDOW values.
    const present = [calling, called, q.fromMs, q.toMs].map((v) => v !== undefined);
    const shape = `find:${present.map((p) => (p ? 1 : 0)).join('')}:${limit}`;
    const parameters = [q.tenantId, calling, called, q.fromMs, q.toMs].filter((v) => v !== undefined);
    const rows = await this.reads.rows(shape, parameters, () => {
      let query = this.db.kysely.selectFrom('call_records').selectAll().where('tenant_id', '=', q.tenantId);
      if (calling !== undefined) query = query.where('calling_key', '=', calling);
      if (called !== undefined) query = query.where('called_key', '=', called);
      if (q.fromMs !== undefined) query = query.where('started_at', '>=', q.fromMs);
      if (q.toMs !== undefined) query = query.where('started_at', '<=', q.toMs);
      return query.orderBy('started_at', 'desc').orderBy('smdr_call_id', 'desc').limit(sql.lit(limit));
    });
    return rows.map((r) => this.toRecord(r));
  }

  /** Refreshes the planner's statistics of the table (after a bulk write, such as a seeded history). */
  async analyze(): Promise<void> {
    await sql`analyze call_records`.execute(this.db.kysely);
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('call_records').execute();
    this.parsed.clear();
  }

  private toRecord(r: Row): CallRecord {
    const known = this.parsed.get(r.smdr_call_id);
    let data = known?.text === r.data ? known.data : undefined;
    if (!data) {
      data = frozen(JSON.parse(r.data) as Record<string, unknown>);
      if (this.parsed.size >= PARSED_KEPT) this.parsed.clear();
      this.parsed.set(r.smdr_call_id, { text: r.data, data });
    }
    return {
      smdrCallId: r.smdr_call_id,
      tenantId: Number(r.tenant_id),
      startedAt: Number(r.started_at),
      answeredAt: r.answered_at === null ? null : Number(r.answered_at),
      endedAt: Number(r.ended_at),
      from: r.from_number,
      to: r.to_number,
      outcome: r.outcome,
      data,
    };
  }
}

/** Parsed records kept (a window of RECENT_WINDOW for each of this many tenants). */
const PARSED_KEPT = 100 * RECENT_WINDOW;

function frozen<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) frozen(v);
    Object.freeze(value);
  }
  return value;
}

/** What the search compares: the number's digits (and `*`, `#`), at most the column's 64 characters. */
const numberKey = (n: string): string => normalizeNumber(n).slice(0, 64);

function toRow(r: CallRecord) {
  return {
    smdr_call_id: r.smdrCallId,
    tenant_id: r.tenantId,
    started_at: r.startedAt,
    answered_at: r.answeredAt ?? null,
    ended_at: r.endedAt,
    from_number: r.from,
    to_number: r.to,
    outcome: r.outcome,
    calling_key: numberKey(r.calling ?? r.from),
    called_key: numberKey(r.called ?? r.to),
    data: JSON.stringify(r.data),
  };
}
