import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBasic, grant, upgrade } from '../../helpers/raw-http.js';
import { basic, suiteServer } from '../../helpers/server.js';

/** Every accepted spelling of the tenant admin 100 of tenant 1001. */
const SPELLINGS = [
  '100@1001',
  '100@01001',
  '100@0001001',
  '100@1001.ID',
  '100@5555550100.DID',
  '100@acme.example.test.URI',
];

/**
 * Issue 14, finding 1: each spelling of a username used to have its own budget of failed logins,
 * so a PIN could be guessed without end. The lock-out counts per resolved principal and address.
 */
describe('the lock-out counts per resolved principal, whatever the spelling', () => {
  const server = suiteServer({ lockoutFailures: 3 });

  test('failures under three spellings through three doors lock every spelling on both APIs', async () => {
    const s = server();
    assert.equal((await getBasic(s, '/api', '100@01001:0000')).status, 401);
    const ws = await upgrade(s, '/api/ws', { headers: { authorization: basic('100@1001.ID:0001') } });
    assert.equal(ws.status, 401);
    // The third failure locks.
    assert.equal((await grant(s, '100@0001001', '0002')).status, 403);

    for (const u of SPELLINGS) {
      const rest = await getBasic(s, '/api', `${u}:1234`);
      assert.equal(rest.status, 403, u);
      assert.equal(JSON.parse(rest.body).errorCode, 'LOCKED_OUT', u);
      assert.ok(Number(rest.headers['retry-after']) > 3500, u);
      const socket = await upgrade(s, '/api/ws', { headers: { authorization: basic(`${u}:1234`) } });
      assert.equal(socket.status, 403, u);
      const token = await grant(s, u, '1234');
      assert.equal(token.status, 403, u);
      assert.deepEqual(JSON.parse(token.body), { success: false, reason: 'Locked Out' }, u);
      assert.ok(Number(token.headers['retry-after']) > 3500, u);
    }
    // Another user from the same address, and the same user from another address, are not locked.
    assert.equal((await getBasic(s, '/api', '101@1001:1234')).status, 200);
    assert.equal((await getBasic(s, '/api', '100@1001:1234', { from: '127.0.0.3' })).status, 200);
  });

  test('failed logins of unknown users count per address, and then every failure answers locked', async () => {
    const s = server();
    const from = '127.0.0.2';
    assert.equal((await getBasic(s, '/api', '999@1001:1234', { from })).status, 401);
    assert.equal((await grant(s, 'nobody', 'x', { from })).status, 401);
    assert.equal((await getBasic(s, '/api', '100@9999:1234', { from })).status, 403);
    // Any further unknown name is refused as locked, without a key derivation …
    assert.equal((await getBasic(s, '/api', '998@1001.ID:1', { from })).status, 403);
    // … and so is a wrong PIN of a real user: the answers no longer tell who exists.
    const wrong = await getBasic(s, '/api', '102@1001:0000', { from });
    assert.equal(wrong.status, 403);
    assert.equal(JSON.parse(wrong.body).errorCode, 'LOCKED_OUT');
    // The right credentials of a user who is not locked still work from that address.
    assert.equal((await getBasic(s, '/api', '102@1001:1234', { from })).status, 200);
    // Other addresses have their own count.
    assert.equal((await getBasic(s, '/api', '999@1001:1234', { from: '127.0.0.4' })).status, 401);
  });
});
