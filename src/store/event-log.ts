import type {
  EventLogPort,
  LoggedEvent,
  SessionStorePort,
  StoredSession,
  StreamHead,
} from '../core/event-stream.js';
import { sql } from 'kysely';
import type { Db } from './database.js';
import { DB_NOW_MS } from './leases.js';

/** The standalone event log: `event_log` rows and `event_streams` heads (SQLite or PostgreSQL). */
export class SqlEventLog implements EventLogPort {
  constructor(private readonly db: Db) {}

  async load(perTenant: number): Promise<{ heads: StreamHead[]; events: LoggedEvent[] }> {
    const k = this.db.kysely;
    const heads = (await k.selectFrom('event_streams').selectAll().execute()).map((h) => ({
      tenantId: h.tenant_id,
      nextSeq: Number(h.next_seq),
      clean: h.clean === 1,
    }));
    const events: LoggedEvent[] = [];
    for (const h of heads) {
      const rows = await k
        .selectFrom('event_log')
        .selectAll()
        .where('tenant_id', '=', h.tenantId)
        .orderBy('seq', 'desc')
        .limit(perTenant)
        .execute();
      for (const r of rows.reverse()) {
        events.push({
          tenantId: r.tenant_id,
          seq: Number(r.seq),
          channel: r.channel,
          tags: JSON.parse(r.tags) as string[],
          body: r.body,
        });
      }
    }
    return { heads, events };
  }

  async append(events: readonly LoggedEvent[], heads: readonly StreamHead[]): Promise<void> {
    await this.db.kysely.transaction().execute(async (tx) => {
      for (let i = 0; i < events.length; i += 200) {
        await tx
          .insertInto('event_log')
          .values(
            events.slice(i, i + 200).map((e) => ({
              tenant_id: e.tenantId,
              seq: e.seq,
              channel: e.channel,
              tags: JSON.stringify(e.tags),
              body: e.body,
            })),
          )
          .execute();
      }
      for (const h of heads) await upsertHead(tx, { ...h, clean: false });
    });
  }

  async prune(tenantId: number, belowSeq: number): Promise<void> {
    await this.db.kysely
      .deleteFrom('event_log')
      .where('tenant_id', '=', tenantId)
      .where('seq', '<', belowSeq)
      .execute();
  }

  async closeClean(heads: readonly StreamHead[]): Promise<void> {
    await this.db.kysely.transaction().execute(async (tx) => {
      for (const h of heads) await upsertHead(tx, { ...h, clean: true });
    });
  }

  async clear(): Promise<void> {
    await this.db.kysely.deleteFrom('event_log').execute();
    await this.db.kysely.deleteFrom('event_streams').execute();
  }
}

type Tx = Parameters<Parameters<ReturnType<Db['kysely']['transaction']>['execute']>[0]>[0];

function upsertHead(tx: Tx, h: StreamHead) {
  const row = { tenant_id: h.tenantId, next_seq: h.nextSeq, clean: h.clean ? 1 : 0 };
  return tx
    .insertInto('event_streams')
    .values(row)
    .onConflict((oc) => oc.column('tenant_id').doUpdateSet({ next_seq: row.next_seq, clean: row.clean }))
    .execute();
}

/** Resumable socket sessions (`resume_sessions`). */
export class SqlSessionStore implements SessionStorePort {
  /** `node`: this cluster node's id, stored with each session it takes; null on a standalone server. */
  constructor(
    private readonly db: Db,
    private readonly node: string | null = null,
  ) {}

  /**
   * Every session; on a standalone server only a standalone server's: a cluster's session (a
   * database moved from a cluster) holds a stream position, not this server's sequence of its
   * tenant, so it cannot be resumed here.
   */
  async all(): Promise<StoredSession[]> {
    let q = this.db.kysely.selectFrom('resume_sessions').selectAll();
    if (this.node === null) q = q.where('node', 'is', null);
    return (await q.execute()).map(sessionOf);
  }

  /**
   * One session, of the same kind as this store's: a cluster node does not see a standalone
   * server's (a database moved into a cluster), whose cursor is a tenant's own sequence and would
   * be read as a stream position; its client's resume fails as for an unknown session.
   */
  async get(id: string): Promise<StoredSession | undefined> {
    const row = await this.db.kysely
      .selectFrom('resume_sessions')
      .selectAll()
      .where('id', '=', id)
      .where('node', this.node === null ? 'is' : 'is not', null)
      .executeTakeFirst();
    return row && sessionOf(row);
  }

  async put(s: StoredSession): Promise<void> {
    const row = { ...rowOf(s), node: this.node };
    await this.db.kysely
      .insertInto('resume_sessions')
      .values(row)
      .onConflict((oc) =>
        oc.column('id').doUpdateSet({
          state: row.state,
          detached_at: row.detached_at,
          holder: row.holder,
          node: row.node,
        }),
      )
      .execute();
  }

  async putHeld(s: StoredSession & { holder: string }): Promise<boolean> {
    const r = await this.db.kysely
      .updateTable('resume_sessions')
      .set({ state: JSON.stringify(s.state), detached_at: s.detachedAt })
      .where('id', '=', s.id)
      .where('holder', '=', s.holder)
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async remove(id: string, ifStored?: { detachedAt: number | null; holder?: string | null }): Promise<void> {
    let q = this.db.kysely.deleteFrom('resume_sessions').where('id', '=', id);
    if (ifStored) {
      const { detachedAt, holder } = ifStored;
      q = q.where('detached_at', detachedAt === null ? 'is' : '=', detachedAt);
      if (holder !== undefined) q = q.where('holder', holder === null ? 'is' : '=', holder);
    }
    await q.execute();
  }

  /**
   * PostgreSQL only (a cluster's database): a node is alive while its `cluster_nodes` heartbeat is
   * within its TTL, by the database's clock. A session without a node was stored by a release
   * before 0012, whose nodes a cluster of this protocol no longer runs beside it.
   */
  async releaseDeadNodes(now: number, graceMs: number): Promise<{ detached: number; removed: number }> {
    // Never this node's own: only it knows when its sockets closed, and its heartbeat may just be late.
    const dead = sql<boolean>`(node is null or (node <> ${this.node} and node not in
      (select node_id from cluster_nodes where heartbeat_at + ttl_ms > ${DB_NOW_MS})))`;
    return this.db.kysely.transaction().execute(async (trx) => {
      const detached = await trx
        .updateTable('resume_sessions')
        .set({ detached_at: now })
        .where('detached_at', 'is', null)
        .where(dead)
        .executeTakeFirst();
      const removed = await trx
        .deleteFrom('resume_sessions')
        .where('detached_at', '<=', now - graceMs)
        .where(dead)
        .executeTakeFirst();
      return { detached: Number(detached.numUpdatedRows), removed: Number(removed.numDeletedRows) };
    });
  }

  async detachOwn(now: number): Promise<void> {
    await this.db.kysely
      .updateTable('resume_sessions')
      .set({ detached_at: now })
      .where('node', '=', this.node)
      .where('detached_at', 'is', null)
      .execute();
  }
}

function rowOf(s: StoredSession) {
  return {
    id: s.id,
    api: s.api,
    identity: s.identity,
    tenant_id: s.tenantId,
    state: JSON.stringify(s.state),
    detached_at: s.detachedAt,
    holder: s.holder,
  };
}

function sessionOf(r: {
  id: string;
  api: StoredSession['api'];
  identity: string;
  tenant_id: number | null;
  state: string;
  detached_at: number | string | bigint | null;
  holder: string | null;
}): StoredSession {
  return {
    id: r.id,
    api: r.api,
    identity: r.identity,
    tenantId: r.tenant_id,
    state: JSON.parse(r.state) as unknown,
    detachedAt: r.detached_at === null ? null : Number(r.detached_at),
    holder: r.holder,
  };
}
