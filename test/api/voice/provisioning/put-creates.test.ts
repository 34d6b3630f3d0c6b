import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, BOB, call } from './provisioning-helpers.js';

/**
 * Issue 14: PUT on an absent item whose key the client names in the path creates it (201 with
 * Location), for those allowed to create; where the server assigns keys, it stays 404.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

describe('PUT on an absent item', () => {
  test('client-chosen keys: created at the path, 201 with Location; then PUT changes it', async () => {
    const cases: [auth: string, path: string, body: Record<string, unknown>, key: string, value: unknown][] =
      [
        [ADMIN, '/api/v1/languages/de', { name: 'German' }, 'langCode', 'de'],
        [ADMIN, '/api/v1/aalanguages/de-AT', { name: 'Austrian German' }, 'langCode', 'de-AT'],
        [ADMIN, '/api/v1/vmlanguages/nl', { name: 'Dutch' }, 'langCode', 'nl'],
        [
          ADMIN,
          '/api/v1/customdhcpoptions/210',
          { name: 'Boot server', valueType: 'string', value: 'boot.example.test' },
          'optionCode',
          210,
        ],
        [ALICE, '/api/v1/tenants/1001/users/160', { firstName: 'Pat', pin: '2468' }, 'extension', '160'],
        [ALICE, '/api/v1/tenants/1001/locations/161', { name: 'Annex', pin: '2468' }, 'extension', '161'],
        [ALICE, '/api/v1/tenants/1001/acds/520', { name: 'Billing' }, 'acdId', '520'],
        [
          ALICE,
          '/api/v1/tenants/1001/callinggroups/620',
          { name: 'Night', callGroupType: 'hunt' },
          'callGroupId',
          '620',
        ],
        [ALICE, '/api/v1/tenants/1001/autoattendants/720', { name: 'After hours' }, 'autoAttendantId', '720'],
      ];
    for (const [auth, path, body, key, value] of cases) {
      assert.equal((await call(s, 'GET', path, auth)).status, 404, `${path} is absent first`);
      const created = await call(s, 'PUT', path, auth, body);
      assert.equal(created.status, 201, `${path}: ${created.text}`);
      assert.equal(created.headers.get('location'), path);
      assert.equal(created.body[key], value, path);
      assert.equal(created.body._links.self.href, path);
      const read = await call(s, 'GET', path, auth);
      assert.equal(read.status, 200, path);
      assert.deepEqual(read.body, created.body, `${path}: PUT answers what GET shows`);
      const again = await call(s, 'PUT', path, auth, body);
      assert.equal(again.status, 200, `${path}: a second PUT changes, it does not create`);
      assert.equal(again.headers.get('location'), null);
    }
    // A user created by PUT logs in with its PIN.
    assert.equal((await call(s, 'GET', '/api/v1', '160@1001:2468')).status, 200);
  });

  test('a create by PUT checks the body as a create: required fields, the key from the path', async () => {
    const cases: [path: string, body: Record<string, unknown>, field: string][] = [
      ['/api/v1/languages/sv', {}, 'name'],
      ['/api/v1/languages/not_a_code', { name: 'Bad' }, 'langCode'],
      ['/api/v1/languages/it', { langCode: 'es', name: 'Italian' }, 'langCode'],
      ['/api/v1/customdhcpoptions/99', { name: 'Low', valueType: 'string', value: 'x' }, 'optionCode'],
    ];
    for (const [path, body, field] of cases) {
      const r = await call(s, 'PUT', path, ADMIN, body);
      assert.equal(r.status, 400, `${path} ${JSON.stringify(body)}: ${r.text}`);
      assert.deepEqual(r.body.parameters, [{ type: 'field', value: field }], path);
      assert.match(r.body.detail, new RegExp(`"${field}"`), path);
      assert.equal((await call(s, 'GET', path, ADMIN)).status, 404, `${path} was not created`);
    }
    const user = await call(s, 'PUT', '/api/v1/tenants/1001/users/162', ALICE, { firstName: 'No PIN' });
    assert.equal(user.status, 400);
    assert.equal(user.body.detail, 'Field "pin": is required.');
  });

  test('who may not create gets 404, as before; server-assigned keys stay 404', async () => {
    // A user may change their own record but not create one.
    assert.equal((await call(s, 'PUT', '/api/v1/tenants/1001/users/163', BOB, { dnd: true })).status, 404);
    const serverKeys = [
      '/api/v1/zones/9999',
      '/api/v1/tenants/1001/phones/ph1001-999',
      '/api/v1/tenants/1001/dids/did-1001-9999',
      '/api/v1/tenants/1001/staticsites/site-1001-999',
      '/api/v1/announcements/9999',
    ];
    for (const path of serverKeys) {
      const r = await call(s, 'PUT', path, ADMIN, { name: 'Nobody' });
      assert.equal(r.status, 404, `${path}: ${r.text}`);
    }
  });
});
