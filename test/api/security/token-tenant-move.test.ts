/**
 * A contact-center token names its user as typed and is resolved again on every use. One issued
 * through a tenant's DID (`101@<DID>.DID`) or login URL must not follow that DID or URL to
 * another tenant and act there as that tenant's 101, without its PIN.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { grant, send } from '../../helpers/raw-http.js';
import { basic, startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
before(async () => (s = await startTestServer()));
after(() => s.stop());

const admin = { authorization: basic('admin:admin'), 'content-type': 'application/json' };
const tokensOf = async (username: string) => {
  const r = await grant(s, username, '1357');
  assert.equal(r.status, 200, username);
  return JSON.parse(r.body) as { access_token: string; refresh_token: string };
};
/** 403: the token is accepted (a user without contact-center roles may not list extensions); 401: refused. */
const use = async (token: string) =>
  (await send(s, '/6/v2/api/extensions', { headers: { authorization: `Bearer ${token}` } })).status;
const call = (method: string, path: string, body: object) =>
  send(s, path, { method, headers: admin, body: JSON.stringify(body) });
const refresh = (token: string) =>
  send(s, '/6/v2/api/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: token }),
  });

test('a DID or login URL given to another tenant takes no token of the first along', async () => {
  // Extension 160 in both tenants, with the same PIN.
  for (const tenant of [1001, 1002]) {
    const r = await call('POST', `/api/v1/tenants/${tenant}/users`, {
      extension: '160',
      firstName: 'Dora',
      pin: '1357',
    });
    assert.equal(r.status, 201, r.body);
  }
  const byDid = await tokensOf('160@15555550100.DID');
  const byUrl = await tokensOf('160@acme.example.test.URI');
  const byId = await tokensOf('160@1001');
  for (const t of [byDid, byUrl, byId]) assert.equal(await use(t.access_token), 403);

  // Acme gives up its DID and its login URL; Globex (1002) takes both.
  let r = await call('PUT', '/api/v1/tenants/1001', {
    did: '+15555550999',
    webLoginUrl: 'acme2.example.test',
  });
  assert.equal(r.status, 200, r.body);
  r = await call('PUT', '/api/v1/tenants/1002', { did: '+15555550100', webLoginUrl: 'acme.example.test' });
  assert.equal(r.status, 200, r.body);

  for (const t of [byDid, byUrl]) {
    assert.equal(await use(t.access_token), 401, 'refused, not taken for Globex 160');
    assert.equal((await refresh(t.refresh_token)).status, 401);
  }
  // The token issued under the tenant's id is untouched; the new spellings log in anew.
  assert.equal(await use(byId.access_token), 403);
  assert.equal(await use((await tokensOf('160@acme2.example.test.URI')).access_token), 403);
});

test('a reset that gives a DID back to another tenant takes no token spelled through it along', async () => {
  // Globex (1002) gives up its DID, and Acme (1001) takes it with an extension 200 of its own.
  let r = await call('PUT', '/api/v1/tenants/1002', { did: '+15555550299' });
  assert.equal(r.status, 200, r.body);
  r = await call('PUT', '/api/v1/tenants/1001', { did: '+15555550200' });
  assert.equal(r.status, 200, r.body);
  r = await call('POST', '/api/v1/tenants/1001/users', { extension: '200', firstName: 'Ada', pin: '1357' });
  assert.equal(r.status, 201, r.body);
  const byDid = await tokensOf('200@15555550200.DID');
  const byId = await tokensOf('200@1001');
  assert.equal(await use(byDid.access_token), 403, "Acme's 200, without contact-center roles");

  // The demo world again: the DID is Globex's, whose 200 is its tenant admin.
  r = await send(s, '/sim/v1/reset', { method: 'POST', headers: admin, body: '{}' });
  assert.ok(r.status < 300, r.body);
  assert.equal(await use(byDid.access_token), 401, "refused, not taken for Globex's admin");
  assert.equal((await refresh(byDid.refresh_token)).status, 401);
  // Spelled through the tenant's id, it names Acme's 200, which the reset removed: refused as before.
  assert.equal(await use(byId.access_token), 401);
  // Globex's admin logs in with its own PIN.
  const own = await grant(s, '200@15555550200.DID', '1234');
  assert.equal(own.status, 200, own.body);
});
