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
    if (!(await this.take(id, key, perClient))) return null;
    this.live.set(id, { key, perClient });
    return id;
  }

  /**
   * Takes (or takes again) claim `id` of the client `key` when its other live claims number fewer
   * than `perClient`, under a lock on the client's key.
   */
  private take(id: string, key: string, perClient: number): Promise<boolean> {
    return this.db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
      const { n } = await trx
        .selectFrom('socket_claims')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('client_key', '=', key)
        .where('claim_id', '<>', id)
        .where('expires_at', '>', DB_NOW_MS)
        .executeTakeFirstOrThrow();
      if (Number(n) >= perClient) return false;
      const row = { client_key: key, node_id: this.nodeId, expires_at: this.expiry() };
      await trx
        .insertInto('socket_claims')
        .values({ claim_id: id, ...row })
        .onConflict((oc) => oc.column('claim_id').doUpdateSet(row))
        .execute();
      return true;
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
      for (const id of asked) if (!found.has(id)) await this.takeAgain(id);
    }
    if (this.unfreed.size > 0) {
      const ids = [...this.unfreed];
      await this.remove(ids);
      for (const id of ids) this.unfreed.delete(id);
    }
    await this.db.kysely.deleteFrom('socket_claims').where('expires_at', '<=', DB_NOW_MS).execute();
  }

  /** An expired claim of this node: taken again if it still fits, else lost (its socket closes). */
  private async takeAgain(id: string): Promise<void> {
    const claim = this.live.get(id);
    if (!claim) return; // given back meanwhile
    // A failure leaves it as it is: the next renewal tries again.
    if (await this.take(id, claim.key, claim.perClient)) {
      if (!this.live.has(id)) await this.remove([id]); // given back while it was taken again
      return;
    }
    if (!this.live.delete(id)) return;
    for (const l of this.listeners) l(id);
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
