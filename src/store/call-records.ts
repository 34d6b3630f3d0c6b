import type { Kysely, Selectable } from 'kysely';
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
  data: Record<string, unknown>;
}

export interface CallRecordQuery {
  tenantId: number;
  callingNumber?: string;
  calledNumber?: string;
  fromMs?: number;
  toMs?: number;
  limit?: number;
}

export class CallRecordStore {
  constructor(private readonly db: Db) {}

  /** Writes (or rewrites) the record; `into`: a transaction it is part of. */
  async write(r: CallRecord, into: Kysely<Database> = this.db.kysely): Promise<void> {
    const row = {
      smdr_call_id: r.smdrCallId,
      tenant_id: r.tenantId,
      started_at: r.startedAt,
      answered_at: r.answeredAt,
      ended_at: r.endedAt,
      from_number: r.from,
      to_number: r.to,
      outcome: r.outcome,
      data: JSON.stringify(r.data),
    };
    await into
      .insertInto('call_records')
      .values(row)
      .onConflict((oc) => oc.column('smdr_call_id').doUpdateSet({ ...row }))
      .execute();
  }

  async get(tenantId: number, smdrCallId: string): Promise<CallRecord | undefined> {
    const r = await this.db.kysely
      .selectFrom('call_records')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('smdr_call_id', '=', smdrCallId)
      .executeTakeFirst();
    return r ? toRecord(r) : undefined;
  }

  /** Newest first. */
  async find(q: CallRecordQuery): Promise<CallRecord[]> {
    let query = this.db.kysely.selectFrom('call_records').selectAll().where('tenant_id', '=', q.tenantId);
    if (q.callingNumber) query = query.where('from_number', '=', q.callingNumber);
    if (q.calledNumber) query = query.where('to_number', '=', q.calledNumber);
    if (q.fromMs !== undefined) query = query.where('started_at', '>=', q.fromMs);
    if (q.toMs !== undefined) query = query.where('started_at', '<=', q.toMs);
    const rows = await query
      .orderBy('started_at', 'desc')
      .orderBy('smdr_call_id', 'desc')
      .limit(q.limit ?? 500)
      .execute();
    return rows.map(toRecord);
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('call_records').execute();
  }
}

function toRecord(r: Selectable<CallRecordsTable>): CallRecord {
  return {
    smdrCallId: r.smdr_call_id,
    tenantId: Number(r.tenant_id),
    startedAt: Number(r.started_at),
    answeredAt: r.answered_at === null ? null : Number(r.answered_at),
    endedAt: Number(r.ended_at),
    from: r.from_number,
    to: r.to_number,
    outcome: r.outcome,
    data: JSON.parse(r.data),
  };
}
