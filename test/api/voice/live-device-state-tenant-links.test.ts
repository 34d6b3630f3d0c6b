import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const get = async (path: string, auth: string) => {
  const r = await s.fetch(path, { auth });
  return { status: r.status, body: (await r.json()) as any };
};

test('device states and phones show live registration, not the provisioned default', async () => {
  const unreg = await s.fetch('/sim/v1/devices/ph1001-103/unregister', {
    method: 'POST',
    auth: 'admin:admin',
  });
  assert.equal(unreg.status < 300, true);
  const state = await get('/api/v1/devicestates/ph1001-103', 'operator:operator');
  assert.equal(state.status, 200);
  assert.equal(state.body.state, 'unregistered');
  const phones = await get('/api/v1/tenants/1001/users/103/phones?expand=item', '100@1001:1234');
  assert.equal(phones.body._embedded.phones[0].registered, false);
  await s.fetch('/sim/v1/devices/ph1001-103/register', { method: 'POST', auth: 'admin:admin' });
  assert.equal((await get('/api/v1/devicestates/ph1001-103', 'operator:operator')).body.state, 'registered');
});

test("a tenant admin reaches the tenant's collections by links from the tenant", async () => {
  const t = await get('/api/v1/tenants/1001', '100@1001:1234');
  assert.equal(t.status, 200);
  assert.equal(t.body._links['v1:users']?.href, '/api/v1/tenants/1001/users');
  const users = await get(t.body._links['v1:users'].href, '100@1001:1234');
  assert.equal(users.status, 200);
  assert.ok(t.body._links.self);
});
