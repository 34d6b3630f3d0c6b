import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { sha256 } from '../core/secrets.js';
import type { SharedSocketClaims } from '../core/shared-security.js';
import type { Db } from './database.js';

/**
 * The sockets each client holds, counted over every node of a cluster (`socket_claims`). A claim
 * is taken under a transaction-scoped advisory lock on the client's key, so two nodes admitting
 * the same client at once cannot both pass the count. Each node keeps its claims alive (`renew`,
 * well within `ttlMs`); the claims of a node that died expire and stop counting.
 * PostgreSQL only: the one database a cluster runs on.
 */
export class SqlSharedSocketClaims implements SharedSocketClaims {
  constructor(
    private readonly db: Db,
    private readonly nodeId: string,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    private readonly onError: (e: unknown) => void = () => {},
  ) {}

  async claim(client: string, perClient: number): Promise<string | null> {
    const now = this.now();
    const key = sha256(client); // the client key holds NULs
    return this.db.kysely.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
      const { n } = await trx
        .selectFrom('socket_claims')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('client_key', '=', key)
        .where('expires_at', '>', now)
        .executeTakeFirstOrThrow();
      if (Number(n) >= perClient) return null;
      const claimId = randomUUID();
      await trx
        .insertInto('socket_claims')
        .values({ claim_id: claimId, client_key: key, node_id: this.nodeId, expires_at: now + this.ttlMs })
        .execute();
      return claimId;
    });
  }

  free(claimId: string): void {
    this.db.kysely.deleteFrom('socket_claims').where('claim_id', '=', claimId).execute().catch(this.onError);
  }

  /** Keeps this node's claims alive, and drops every expired one. */
  async renew(): Promise<void> {
    const now = this.now();
    await this.db.kysely
      .updateTable('socket_claims')
      .set({ expires_at: now + this.ttlMs })
      .where('node_id', '=', this.nodeId)
      .execute();
    await this.db.kysely.deleteFrom('socket_claims').where('expires_at', '<=', now).execute();
  }

  /** This node's claims go (a clean stop). */
  async releaseAll(): Promise<void> {
    await this.db.kysely.deleteFrom('socket_claims').where('node_id', '=', this.nodeId).execute();
  }
}
