import { type Kysely, sql } from 'kysely';
import type { WriteLease } from '../core/cluster.js';
import { CompiledShapes } from './compiled-shapes.js';
import type { Db } from './database.js';
import { assertEpoch } from './lease-fence.js';
import type { Database } from './schema.js';

export interface TextCounts {
  out_sms: number;
  out_mms: number;
  in_sms: number;
  in_mms: number;
}
export type TextCounter = keyof TextCounts;

const ZERO: TextCounts = { out_sms: 0, out_mms: 0, in_sms: 0, in_mms: 0 };

/**
 * Durable SMS/MMS counters per tenant (`text_counters`). A tenant's owner changes them under its
 * lease (`lease-fence.ts`): a paused former owner cannot reset or count over its successor.
 */
export class TextCounterStore {
  /** The read's query, compiled once (compiled-shapes.ts). */
  private readonly reads: CompiledShapes<Record<TextCounter, number | string>>;

  constructor(private readonly db: Db) {
    this.reads = new CompiledShapes(db.kysely);
  }

  /** `lease`: the owner's (none, or epoch 0 on a standalone server: nothing to check). */
  async increment(tenantId: number, counter: TextCounter, lease?: WriteLease): Promise<void> {
    await this.fenced(tenantId, lease, (db) =>
      db
        .insertInto('text_counters')
        .values({ tenant_id: tenantId, ...ZERO, [counter]: 1 })
        .onConflict((oc) =>
          oc.column('tenant_id').doUpdateSet({ [counter]: sql`text_counters.${sql.ref(counter)} + 1` }),
        )
        .execute(),
    );
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

  async reset(tenantId: number, lease?: WriteLease): Promise<void> {
    await this.fenced(tenantId, lease, (db) =>
      db.deleteFrom('text_counters').where('tenant_id', '=', tenantId).execute(),
    );
  }

  private async fenced(
    tenantId: number,
    lease: WriteLease | undefined,
    write: (db: Kysely<Database>) => Promise<unknown>,
  ): Promise<void> {
    if (!lease || lease.epoch === 0) {
      await write(this.db.kysely);
      return;
    }
    await this.db.kysely.transaction().execute(async (trx) => {
      await assertEpoch(trx, tenantId, lease.nodeId, lease.epoch);
      await write(trx);
    });
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('text_counters').execute();
  }
}
