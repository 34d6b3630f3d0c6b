import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client, basicAuth } from 'ketting';
import { type TestServer, startTestServer } from '../../../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

/** A real third-party HAL client; every address comes from a link, starting at /api. */
function hal(user: string, pin: string) {
  const client = new Client(s.httpUrl);
  client.use(basicAuth(user, pin));
  return client.go('/api');
}

test('a telco admin provisions a tenant, its admin, a call group and a route by following links', async () => {
  const v1 = hal('admin', 'admin').follow('api:v1');

  const tenants = await v1.follow('v1:tenants');
  const initech = await tenants.postFollow({ data: { tenantId: 1005, name: 'Initech' } });
  const listed = await tenants.refresh();
  const row = listed.getEmbedded().find((t) => t.data.tenantId === 1005)!;
  assert.equal(row.uri, initech.uri);

  const users = await row.follow('v1:users');
  const bill = await users.postFollow({
    data: { extension: '100', firstName: 'Bill', pin: '4321', admin: true },
  });
  assert.equal((await bill.get()).data.admin, true);

  // The new tenant admin follows links of their own.
  const bills = await hal('100@1005', '4321').follow('api:v1');
  const own = await (await bills.follow('v1:user')).get();
  assert.equal(own.data.firstName, 'Bill');
  assert.equal((await bills.get()).links.has('v1:tenants'), false, 'a tenant admin has no tenants list');

  const tenantState = await row.follow('v1:callGroups');
  const group = await tenantState.postFollow({
    data: { extension: '600', name: 'Support line', callGroupType: 'rollover', members: ['100'] },
  });
  const g = await group.get();
  assert.equal(g.data.callGroupType, 'rollover');
  assert.deepEqual(g.data.members, ['100']);

  // System level: a carrier, a route over it, a dial plan rule over the route.
  const carrier = await (
    await v1.follow('v1:carriers')
  ).postFollow({
    data: { name: 'Second carrier', host: 'sip2.example.test' },
  });
  const carrierId = (await carrier.get()).data.carrierId as string;
  const route = await (
    await v1.follow('v1:routes')
  ).postFollow({
    data: { name: 'Second route', routeType: 'sip', carrierId },
  });
  const routeState = await route.get();
  assert.equal(routeState.links.get('v1:carrier')?.href, carrier.uri.replace(s.httpUrl, ''));
  const plan = await (
    await v1.follow('v1:dialPlans')
  ).postFollow({
    data: {
      name: 'Initech plan',
      rules: [{ pattern: '011', destinationType: 'international', routeId: routeState.data.routeId }],
    },
  });
  const routes = await (await plan.get()).followAll('v1:routes');
  assert.deepEqual(
    routes.map((r) => r.uri),
    [route.uri],
  );
});
