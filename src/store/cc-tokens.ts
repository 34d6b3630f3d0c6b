import type { Db } from './database.js';

export interface StoredToken {
  kind: 'access' | 'refresh';
  /** The username the token was issued to (`admin`, `101@1001`). */
  subject: string;
  expiresAt: number;
}

/** Contact-center OAuth tokens, stored by hash only (`cc_tokens`). */
export class CcTokenStore {
  constructor(private readonly db: Db) {}

  async put(tokenHash: string, t: StoredToken, now: number): Promise<void> {
    await this.db.kysely
      .insertInto('cc_tokens')
      .values({
        token_hash: tokenHash,
        kind: t.kind,
        subject: t.subject,
        expires_at: t.expiresAt,
        created_at: now,
      })
      .execute();
  }

  async get(tokenHash: string): Promise<StoredToken | undefined> {
    const r = await this.db.kysely
      .selectFrom('cc_tokens')
      .select(['kind', 'subject', 'expires_at'])
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return r ? { kind: r.kind, subject: r.subject, expiresAt: Number(r.expires_at) } : undefined;
  }

  /** Whether this call removed it: of two nodes trading one refresh token at once, one does. */
  async remove(tokenHash: string): Promise<boolean> {
    const r = await this.db.kysely
      .deleteFrom('cc_tokens')
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /** Every subject holding a token (revocation picks from them). */
  async subjects(): Promise<string[]> {
    const rows = await this.db.kysely.selectFrom('cc_tokens').select('subject').distinct().execute();
    return rows.map((r) => r.subject);
  }

  async removeSubjects(subjects: readonly string[]): Promise<void> {
    if (subjects.length === 0) return;
    await this.db.kysely.deleteFrom('cc_tokens').where('subject', 'in', subjects).execute();
  }

  async removeExpired(now: number): Promise<void> {
    await this.db.kysely.deleteFrom('cc_tokens').where('expires_at', '<', now).execute();
  }
}
