import type { EntityKey, EntityStore } from '../directory/directory.js';
import type { GenericEntity, StoredEntity } from '../directory/model.js';
import type { Db } from './database.js';

/** The directory's persistence: one row per entity in `directory_entities`. */
export class SqlEntityStore implements EntityStore {
  constructor(private readonly db: Db) {}

  async loadAll(): Promise<StoredEntity[]> {
    const rows = await this.db.kysely.selectFrom('directory_entities').selectAll().execute();
    return rows.map(stored);
  }

  async load(keys: readonly EntityKey[]): Promise<StoredEntity[]> {
    if (keys.length === 0) return [];
    const rows = await this.db.kysely
      .selectFrom('directory_entities')
      .selectAll()
      .where((eb) => eb.or(keys.map((k) => eb.and([eb('kind', '=', k.kind), eb('id', '=', k.id)]))))
      .execute();
    return rows.map(stored);
  }

  async upsert(e: StoredEntity): Promise<void> {
    const row = {
      kind: e.kind,
      id: e.id,
      tenant_id: e.tenantId,
      data: JSON.stringify(e.data),
      updated_at: Date.now(),
    };
    await this.db.kysely
      .insertInto('directory_entities')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['kind', 'id']).doUpdateSet({
          tenant_id: row.tenant_id,
          data: row.data,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }

  async insert(e: StoredEntity): Promise<boolean> {
    const [result] = await this.db.kysely
      .insertInto('directory_entities')
      .values({
        kind: e.kind,
        id: e.id,
        tenant_id: e.tenantId,
        data: JSON.stringify(e.data),
        updated_at: Date.now(),
      })
      .onConflict((oc) => oc.columns(['kind', 'id']).doNothing())
      .execute();
    return Number(result?.numInsertedOrUpdatedRows ?? 0) === 1;
  }

  async remove(kind: string, id: string): Promise<void> {
    await this.db.kysely
      .deleteFrom('directory_entities')
      .where('kind', '=', kind)
      .where('id', '=', id)
      .execute();
  }

  async replaceAll(entities: StoredEntity[]): Promise<void> {
    const now = Date.now();
    await this.db.kysely.transaction().execute(async (trx) => {
      await trx.deleteFrom('directory_entities').execute();
      const rows = entities.map((e) => ({
        kind: e.kind,
        id: e.id,
        tenant_id: e.tenantId,
        data: JSON.stringify(e.data),
        updated_at: now,
      }));
      for (let i = 0; i < rows.length; i += 200) {
        await trx
          .insertInto('directory_entities')
          .values(rows.slice(i, i + 200))
          .execute();
      }
    });
  }
}

const stored = (r: { kind: string; id: string; tenant_id: number | null; data: string }): StoredEntity => ({
  kind: r.kind,
  id: r.id,
  tenantId: r.tenant_id,
  data: JSON.parse(r.data) as GenericEntity,
});
