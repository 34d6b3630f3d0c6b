import { sql } from 'kysely';
import { CompiledShapes } from './compiled-shapes.js';
import type { Db } from './database.js';

export interface TextCounts {
  out_sms: number;
  out_mms: number;
  in_sms: number;
  in_mms: number;
}
export type TextCounter = keyof TextCounts;

const ZERO: TextCounts = { out_sms: 0, out_mms: 0, in_sms: 0, in_mms: 0 };

/** Durable SMS/MMS counters per tenant (`text_counters`). */
export class TextCounterStore {
  /** The read's query, compiled once (compiled-shapes.ts). */
  private readonly reads: CompiledShapes<Record<TextCounter, number | string>>;

  constructor(private readonly db: Db) {
    this.reads = new CompiledShapes(db.kysely);
  }

  async increment(tenantId: number, counter: TextCounter): Promise<void> {
    await this.db.kysely
      .insertInto('text_counters')
      .values({ tenant_id: tenantId, ...ZERO, [counter]: 1 })
      .onConflict((oc) =>
        oc.column('tenant_id').doUpdateSet({ [counter]: sql`text_counters.${sql.ref(counter)} + 1` }),
      )
      .execute();
  }

  async get(tenantId: number): Promise<TextCounts> {
    const [r] = await this.reads.rows('get', [tenantId], () =>
      this.db.kysely
        .selectFrom('text_counters')
        .select(['out_sms', 'out_mms', 'in_sms', 'in_mms'])
        .where('tenant_id', '=', tenantId),
    );
    if (!r) return { ...ZERO };
    return {
      out_sms: Number(r.out_sms),
      out_mms: Number(r.out_mms),
      in_sms: Number(r.in_sms),
      in_mms: Number(r.in_mms),
    };
  }

  async reset(tenantId: number): Promise<void> {
    await this.db.kysely.deleteFrom('text_counters').where('tenant_id', '=', tenantId).execute();
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('text_counters').execute();
  }
}
