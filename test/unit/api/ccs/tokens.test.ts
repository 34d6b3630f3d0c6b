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
    const grant = await tokens.issue('101@1001');
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
