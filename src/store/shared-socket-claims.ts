import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { sha256 } from '../core/secrets.js';
import type { SharedSocketClaims } from '../core/shared-security.js';
import type { Db } from './database.js';
import { DB_NOW_MS } from './leases.js';

/**
 * The sockets each client holds, counted over every node of a cluster (`socket_claims`). A claim
 * is taken under a transaction-scoped advisory lock on the client's key, so two nodes admitting
 * the same client at once cannot both pass the count. Each node keeps its claims alive (`renew`,
 * well within `ttlMs`); the claims of a node that died expire and stop counting. Times are the
 * database's clock, so a node whose clock runs ahead cannot expire the others' claims early.
 * A node that finds one of its claims expired at `renew` (it stalled, or the database was out,
 * past the time to live) takes it again if the client's other live claims leave room, as when
 * the socket was opened: a database outage does not close every socket. One that no longer fits
 * (the client connected elsewhere meanwhile, and keeps the newer socket) is lost: the listeners
 * close that socket. A claim whose removal failed is tried again at each `renew` and no longer
 * kept alive meanwhile.
 * PostgreSQL only: the one database a cluster runs on.
 */
/** Expired claims taken again per transaction, at most. */
const RETAKE_CHUNK = 200;

export class SqlSharedSocketClaims implements SharedSocketClaims {
  /** This node's claims, taken and not given back: each one's client key and limit. */
  private readonly live = new Map<string, { key: string; perClient: number }>();
  /** Given back, but not removed yet (the database failed). */
  private readonly unfreed = new Set<string>();
  private readonly listeners: ((claimId: string) => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  async claim(client: string, perClient: number): Promise<string | null> {
    const key = sha256(client); // the client key holds NULs
    const id = randomUUID();
    if (!(await this.take([{ id, key, perClient }])).has(id)) return null;
    this.live.set(id, { key, perClient });
    return id;
  }

  /**
   * Takes (or takes again) each claim whose client's other live claims number fewer than its
   * `perClient`, in one transaction under the clients' locks (taken in the order of their
   * hashes, so two nodes taking several cannot deadlock on them); answers the ids taken.
   */
  private take(claims: { id: string; key: string; perClient: number }[]): Promise<Set<string>> {
    const keys = [...new Set(claims.map((c) => c.key))].sort();
    const ids = claims.map((c) => c.id);
    return this.db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(h)
        from (select distinct hashtext(k) as h from unnest(${keys}::text[]) as k order by h) as locks`.execute(
        trx,
      );
      const counts = await trx
        .selectFrom('socket_claims')
        .select((eb) => ['client_key', eb.fn.countAll<string>().as('n')])
        .where(sql<boolean>`client_key = any(${keys}::text[])`)
        .where(sql<boolean>`claim_id <> all(${ids}::text[])`)
        .where('expires_at', '>', DB_NOW_MS)
        .groupBy('client_key')
        .execute();
      const used = new Map(counts.map((r) => [r.client_key, Number(r.n)]));
      const fit = claims.filter((c) => {
        const n = used.get(c.key) ?? 0;
        if (n >= c.perClient) return false;
        used.set(c.key, n + 1);
        return true;
      });
      if (fit.length > 0) {
        await sql`insert into socket_claims (claim_id, client_key, node_id, expires_at)
          select t.id, t.key, ${this.nodeId}, ${this.expiry()}
          from unnest(${fit.map((c) => c.id)}::text[], ${fit.map((c) => c.key)}::text[]) as t(id, key)
          on conflict (claim_id) do update
          set client_key = excluded.client_key, node_id = excluded.node_id, expires_at = excluded.expires_at`.execute(
          trx,
        );
      }
      return new Set(fit.map((c) => c.id));
    });
  }

  free(claimId: string): void {
    if (!this.live.delete(claimId)) return;
    this.remove([claimId]).catch((e: unknown) => {
      this.unfreed.add(claimId);
      this.onError(e);
    });
  }

  onLost(listener: (claimId: string) => void): void {
    this.listeners.push(listener);
  }

  /** Keeps this node's live claims alive, removes those it gave back, and drops every expired one. */
  async renew(): Promise<void> {
    const asked = [...this.live.keys()];
    if (asked.length > 0) {
      const kept = await this.db.kysely
        .updateTable('socket_claims')
        .set({ expires_at: this.expiry() })
        .where('node_id', '=', this.nodeId)
        .where(anyOf('claim_id', asked))
        // One that expired no longer counts on the other nodes: it is lost, even if still there.
        .where('expires_at', '>', DB_NOW_MS)
        .returning('claim_id')
        .execute();
      const found = new Set(kept.map((r) => r.claim_id));
      await this.takeAgain(asked.filter((id) => !found.has(id)));
    }
    if (this.unfreed.size > 0) {
      const ids = [...this.unfreed];
      await this.remove(ids);
      for (const id of ids) this.unfreed.delete(id);
    }
    // Rows another node is taking again right now are skipped: it holds them, in its own order.
    await sql`delete from socket_claims where claim_id in
      (select claim_id from socket_claims where expires_at <= ${DB_NOW_MS} for update skip locked)`.execute(
      this.db.kysely,
    );
  }

  /** This node's claims that expired: taken again where they still fit, else lost (their sockets close). */
  private async takeAgain(ids: string[]): Promise<void> {
    const claims = ids.flatMap((id) => {
      const c = this.live.get(id);
      return c ? [{ id, ...c }] : []; // not given back meanwhile
    });
    if (claims.length === 0) return;
    // Each transaction holds at most one lock per claim: a few hundred at a time, well within
    // the database's lock table however many sockets the node holds.
    const taken = new Set<string>();
    for (let i = 0; i < claims.length; i += RETAKE_CHUNK) {
      // Not those given back meanwhile (a socket closed, the node stopping: releaseAll).
      const chunk = claims.slice(i, i + RETAKE_CHUNK).filter((c) => this.live.has(c.id));
      if (chunk.length === 0) continue;
      try {
        for (const id of await this.take(chunk)) taken.add(id);
      } catch (e) {
        // This chunk and the rest stay as they are: the next renewal tries again (the database
        // failing one will likely fail the others, each after its time-out).
        this.onError(e);
        for (const c of claims.slice(i)) taken.add(c.id);
        break;
      }
    }
    for (const c of claims) {
      if (taken.has(c.id)) {
        if (!this.live.has(c.id)) this.unfreed.add(c.id); // given back while it was taken again
      } else if (this.live.delete(c.id)) {
        for (const l of this.listeners) l(c.id);
      }
    }
  }

  /** This node's claims go (a clean stop). */
  async releaseAll(): Promise<void> {
    this.live.clear();
    this.unfreed.clear();
    await this.db.kysely.deleteFrom('socket_claims').where('node_id', '=', this.nodeId).execute();
  }

  private expiry() {
    return sql<number>`${DB_NOW_MS} + ${this.ttlMs}`;
  }

  private async remove(ids: string[]): Promise<void> {
    await this.db.kysely.deleteFrom('socket_claims').where(anyOf('claim_id', ids)).execute();
  }
}

/**
 * `column = any($1)`: the ids as one array parameter. A node may hold more sockets than an
 * `in (…)` list can name (PostgreSQL takes at most 65,535 parameters in a statement).
 */
function anyOf(column: 'claim_id', ids: string[]) {
  return sql<boolean>`${sql.ref(column)} = any(${ids})`;
}
