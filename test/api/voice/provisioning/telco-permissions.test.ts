import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { V1_ROOT } from '../../../../src/api/voice/navigation/v1-root-table.js';
import type { TelcoPermission } from '../../../../src/core/permissions.js';
import { hashSecret } from '../../../../src/core/secrets.js';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { call, followable } from './provisioning-helpers.js';

/** One telco user per permission, so that the root table's `Telco(X)` columns are told apart. */
const USERS: [name: string, perm: TelcoPermission][] = [
  ['tbam', 'TBAM'],
  ['sm', 'SM'],
  ['em', 'EM'],
  ['sbam', 'SBAM'],
];
const EXAMPLES = { langCode: 'en', macAddress: '02:5b:0a:0f:46:8d' };

let s: TestServer;
before(async () => {
  s = await startTestServer();
  const hash = hashSecret('pw');
  for (const [id, perm] of USERS) {
    await s.runtime.directory.put('telcoUser', {
      id,
      passwordHash: hash,
      telcoPermissions: [perm],
      callControl: false,
      ccPermissions: [],
      enabled: true,
    });
  }
});
after(() => s.stop());

test('each telco permission reaches exactly the root relations the table gives it', async () => {
  let checked = 0;
  for (const row of V1_ROOT) {
    const telcoRules = row.rules.filter((r) => r.startsWith('UT:'));
    if (telcoRules.length === 0) continue;
    const href = followable(row.template, EXAMPLES);
    if (!href) continue;
    for (const [user, perm] of USERS) {
      const allowed = telcoRules.includes('UT:*') || telcoRules.includes(`UT:${perm}`);
      const root = await call(s, 'GET', '/api/v1', `${user}:pw`);
      assert.equal(`v1:${row.rel}` in root.body._links, allowed, `${user} sees v1:${row.rel}`);
      const r = await call(s, 'GET', href, `${user}:pw`);
      assert.equal(r.status, allowed ? 200 : 403, `${user} GET ${href}: ${r.text.slice(0, 120)}`);
      checked++;
    }
  }
  assert.ok(checked >= 4 * 35, `checked ${checked}`);
});

test('writers of a system collection are its telco readers', async () => {
  const zone = await call(s, 'POST', '/api/v1/zones', 'sm:pw', { name: 'By SM' });
  assert.equal(zone.status, 201, zone.text);
  assert.equal((await call(s, 'GET', zone.headers.get('location')!, 'sbam:pw')).status, 200);
  assert.equal((await call(s, 'PUT', zone.headers.get('location')!, 'sbam:pw', { name: 'x' })).status, 403);
  assert.equal(
    (
      await call(s, 'POST', '/api/v1/gateways', 'sm:pw', {
        name: 'g',
        host: 'g.example.test',
        gatewayType: 'sip',
      })
    ).status,
    403,
  );
  const gw = await call(s, 'POST', '/api/v1/gateways', 'em:pw', {
    name: 'g',
    host: 'g.example.test',
    gatewayType: 'sip',
  });
  assert.equal(gw.status, 201, gw.text);
  assert.equal(
    (await call(s, 'PUT', '/api/v1/systemproperties', 'tbam:pw', { systemName: 'x' })).status,
    403,
  );
  assert.equal(
    (await call(s, 'PUT', '/api/v1/systemproperties', 'sm:pw', { systemName: 'SM made' })).status,
    200,
  );
});
