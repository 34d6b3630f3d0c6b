import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TokenService } from '../../../../src/api/ccs/tokens.js';
import { sha256 } from '../../../../src/core/secrets.js';
import { openDatabase } from '../../../../src/store/database.js';

test('tokens are stored hashed, expire after an hour, and refresh once', async () => {
  const db = await openDatabase({ kind: 'sqlite', file: ':memory:' });
  try {
    let now = 1_000_000;
    const tokens = new TokenService(db, () => now);
    const grant = (await tokens.issue('101@1001'))!;
    assert.equal(grant.expires_in, 3600);
    const rows = await db.kysely.selectFrom('cc_tokens').selectAll().execute();
    assert.deepEqual(
      rows.map((r) => r.token_hash).sort(),
      [sha256(grant.access_token), sha256(grant.refresh_token)].sort(),
    );
    assert.ok(rows.every((r) => r.token_hash !== grant.access_token && r.token_hash !== grant.refresh_token));

    assert.equal(await tokens.subjectOf(grant.access_token), '101@1001');
    assert.equal(await tokens.subjectOf(grant.refresh_token), null, 'a refresh token is not an access token');
    // A second service over the same database (a restart) still knows the token.
    assert.equal(await new TokenService(db, () => now).subjectOf(grant.access_token), '101@1001');

    now += 3600 * 1000;
    assert.equal(await tokens.subjectOf(grant.access_token), null);
    assert.deepEqual(await tokens.refresh(grant.refresh_token), { subject: '101@1001' });
    assert.equal(await tokens.refresh(grant.refresh_token), null);
  } finally {
    await db.close();
  }
});

test('a revocation that begins while a grant is stored leaves no token of it', async () => {
  const db = await openDatabase({ kind: 'sqlite', file: ':memory:' });
  try {
    const tokens = new TokenService(db);
    // The PIN changes (a revocation begins) while the new pair is being written: the revocation
    // reads the store's subjects before the pair is in.
    const issuing = tokens.issue('104@1001');
    const other = tokens.issue('105@1001');
    await tokens.revoke((s) => s === '104@1001');
    assert.equal(await issuing, null, 'no grant: the credentials changed meanwhile');
    const kept = await other;
    assert.ok(kept, 'another user’s grant is not touched');
    const rows = await db.kysely.selectFrom('cc_tokens').select('subject').execute();
    assert.deepEqual(
      rows.map((r) => r.subject),
      ['105@1001', '105@1001'],
    );
    assert.equal(await tokens.subjectOf(kept.access_token), '105@1001');
  } finally {
    await db.close();
  }
});
