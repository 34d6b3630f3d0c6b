import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { BASE, CcClient } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const GLOBEX = DEMO.globex.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const OQ = '5b0a0006-0000-4000-8000-000000100101';

type Who = 'admin' | 'operator' | '100@1001' | '101@1001' | '105@1001' | '200@1002';
interface Row {
  n: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** A caller holding the permission, and the status it gets (404 when the permission passed but the call is unknown). */
  allowed: [Who, number];
  refused: Who[];
}

const ROWS: Row[] = [
  { n: '1', method: 'GET', path: 'products/', allowed: ['100@1001', 200], refused: ['101@1001', 'operator'] },
  { n: '2', method: 'GET', path: 'roles/', allowed: ['admin', 200], refused: ['operator', '101@1001'] },
  { n: '3', method: 'GET', path: 'tenants', allowed: ['operator', 200], refused: ['101@1001'] },
  { n: '4', method: 'GET', path: `tenants/${ACME}`, allowed: ['operator', 200], refused: ['101@1001'] },
  { n: '5', method: 'GET', path: `tenants/${ACME}/roles`, allowed: ['100@1001', 200], refused: ['101@1001'] },
  { n: '6a', method: 'GET', path: 'acds', allowed: ['100@1001', 200], refused: ['101@1001', 'operator'] },
  { n: '6b', method: 'GET', path: `tenants/${ACME}/acds`, allowed: ['admin', 200], refused: ['101@1001'] },
  {
    n: '7',
    method: 'GET',
    path: `tenants/${ACME}/presence_options`,
    allowed: ['100@1001', 200],
    refused: ['101@1001'],
  },
  {
    n: '8a',
    method: 'GET',
    path: `tenants/${ACME}/extensions`,
    allowed: ['admin', 200],
    refused: ['101@1001'],
  },
  { n: '8b', method: 'GET', path: 'extensions', allowed: ['100@1001', 200], refused: ['101@1001'] },
  {
    n: '9',
    method: 'GET',
    path: `tenants/${ACME}/text_count`,
    allowed: ['admin', 200],
    refused: ['101@1001'],
  },
  {
    n: '10',
    method: 'POST',
    path: `tenants/${ACME}/text_count`,
    body: { request: 'reset_counter' },
    allowed: ['admin', 200],
    refused: ['101@1001'],
  },
  {
    n: '11',
    method: 'POST',
    path: `tenants/${ACME}`,
    body: { request: 'add_product', product: DEMO.products.recording },
    allowed: ['admin', 200],
    refused: ['operator', '101@1001'],
  },
  {
    n: '12',
    method: 'POST',
    path: `tenants/${ACME}`,
    body: { request: 'delete_product', product: DEMO.products.recording },
    allowed: ['admin', 200],
    refused: ['operator', '101@1001'],
  },
  {
    n: '13',
    method: 'PUT',
    path: `tenants/${ACME}`,
    body: { max_agents: '60' },
    allowed: ['100@1001', 200],
    refused: ['operator', '101@1001'],
  },
  {
    n: '14',
    method: 'PUT',
    path: `tenants/${ACME}/extensions/${ext('103')}`,
    body: { max_chats: '2' },
    allowed: ['100@1001', 200],
    refused: ['101@1001'],
  },
  {
    n: '15',
    method: 'GET',
    path: `tenants/${ACME}/extensions/${ext('101')}/agent_state`,
    allowed: ['100@1001', 200],
    refused: ['operator', '105@1001'],
  },
  {
    n: '16',
    method: 'POST',
    path: `tenants/${ACME}/extensions/${ext('101')}`,
    body: { request: 'updateAgentState', name: 'Ready' },
    allowed: ['admin', 200],
    refused: ['operator'],
  },
  {
    n: '17',
    method: 'POST',
    path: 'agent_state',
    body: { request: 'updateAgentState', name: 'Ready' },
    allowed: ['101@1001', 200],
    refused: ['operator', '105@1001'],
  },
  {
    n: '18',
    method: 'POST',
    path: `extensions/${ext('102')}`,
    body: { request: 'updateAgentState', name: 'Ready' },
    allowed: ['100@1001', 200],
    refused: ['101@1001', 'operator'],
  },
  { n: '19', method: 'GET', path: 'calls', allowed: ['100@1001', 200], refused: ['101@1001', '105@1001'] },
  { n: '20', method: 'GET', path: 'calls/123456', allowed: ['101@1001', 404], refused: ['105@1001'] },
  {
    n: '21',
    method: 'GET',
    path: 'calls/filter?calling_number=%2B15550000000',
    allowed: ['101@1001', 404],
    refused: ['105@1001'],
  },
  ...['startSuppression', 'stopSuppression', 'kill', 'wait_transfer', 'wait_redirect', 'wait_kill'].map(
    (request, i): Row => ({
      n: String(22 + i),
      method: 'POST',
      path: 'calls/123456',
      body: { request, target: request === 'wait_redirect' ? ext('501') : '101' },
      allowed: ['100@1001', 404],
      refused: ['101@1001', 'operator'],
    }),
  ),
  {
    n: '28',
    method: 'POST',
    path: `tenants/${ACME}/extensions/${ext('101')}`,
    body: { request: 'dial', target: '+15550001234', outbound_queue_uuid: OQ },
    allowed: ['100@1001', 200],
    refused: ['101@1001', 'admin'],
  },
];

describe('contact-center permissions and tenant scope', () => {
  let server: TestServer;
  const clients = new Map<Who, CcClient>();
  before(async () => {
    server = await startTestServer();
    for (const who of ['admin', 'operator', '100@1001', '101@1001', '105@1001', '200@1002'] as Who[]) {
      clients.set(who, await CcClient.login(server, who));
    }
  });
  after(() => server.stop());

  for (const row of ROWS) {
    test(`#${row.n} ${row.method} ${row.path}: allowed and refused`, async () => {
      const [who, status] = row.allowed;
      const ok = await clients.get(who)!.call(row.method, row.path, row.body);
      assert.equal(ok.status, status, `${who}: ${JSON.stringify(ok.body)}`);
      if (status === 200) assert.equal(ok.body.success, true);
      for (const r of row.refused) {
        const no = await clients.get(r)!.call(row.method, row.path, row.body);
        assert.equal(no.status, 403, `${r}: ${JSON.stringify(no.body)}`);
        assert.deepEqual(no.body, { success: false, reason: 'Forbidden' });
      }
    });
  }

  test('a caller without the permission gets 403 before the request is validated', async () => {
    const cases: [Who, string, string, unknown][] = [
      ['101@1001', 'POST', 'calls/123456', { request: 'nonsense' }],
      ['101@1001', 'POST', 'calls/not-a-call', { request: 'startSuppression' }],
      ['101@1001', 'POST', 'calls/123456', { request: 'wait_redirect', target: 'not a uuid' }],
      ['105@1001', 'GET', 'calls/not-a-call', undefined],
      ['105@1001', 'GET', 'calls/filter?from_datetime=yesterday', undefined],
      ['101@1001', 'PUT', `tenants/${ACME}`, { max_agents: 'many' }],
      ['101@1001', 'POST', `tenants/${ACME}`, { request: 'add_product' }],
      ['101@1001', 'POST', `tenants/${ACME}/text_count`, { request: 'nope' }],
      ['operator', 'POST', `tenants/${ACME}/extensions/${ext('101')}`, { request: 'dial' }],
      ['105@1001', 'POST', 'agent_state', { request: 'updateAgentState' }],
      ['105@1001', 'POST', `extensions/${ext('102')}`, {}],
    ];
    for (const [who, method, path, body] of cases) {
      const r = await clients.get(who)!.call(method, path, body);
      assert.equal(r.status, 403, `${who} ${method} ${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(r.body, { success: false, reason: 'Forbidden' });
    }
    // With the permission, the same kind of body is a 400 naming the field.
    const bad = await clients.get('100@1001')!.call('PUT', `tenants/${ACME}`, { max_agents: 'many' });
    assert.deepEqual(bad, { status: 400, body: { success: false, reason: 'max_agents must be a number' } });
  });

  test('401 without a valid token, exactly', async () => {
    for (const authorization of [undefined, 'Bearer nope', 'Basic YWRtaW46YWRtaW4=']) {
      const res = await server.fetch(`${BASE}/tenants`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401);
      assert.equal(await res.text(), '{"status":401,"reason":"Unauthorized"}');
    }
  });

  test('the token endpoint takes form bodies, refuses bad passwords, and refreshes', async () => {
    const form = await server.fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=101%405555550100.DID&password=1234',
    });
    assert.equal(form.status, 200);
    const grant = (await form.json()) as Record<string, unknown>;
    assert.equal(grant.token_type, 'Bearer');
    assert.equal(grant.expires_in, 3600);
    assert.match(String(grant.access_token), /^[A-Za-z0-9_-]{40,}$/);
    const bad = await server.fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      json: { grant_type: 'password', username: '102@1001', password: 'wrong' },
    });
    assert.equal(bad.status, 401);
    const refreshed = await server.fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      json: { grant_type: 'refresh_token', refresh_token: grant.refresh_token },
    });
    assert.equal(refreshed.status, 200);
    const again = await server.fetch(`${BASE}/oauth/token`, {
      method: 'POST',
      json: { grant_type: 'refresh_token', refresh_token: grant.refresh_token },
    });
    assert.equal(again.status, 401, 'a refresh token works once');
  });

  test('telco users reach any tenant; tenant users only their own', async () => {
    const admin = clients.get('admin')!;
    const acmeAdmin = clients.get('100@1001')!;
    const globexAdmin = clients.get('200@1002')!;
    const g = await admin.get(`tenants/${GLOBEX}/extensions`);
    assert.equal(g.status, 200);
    assert.deepEqual(
      g.body.items.map((e: { extension: string }) => e.extension),
      ['200', '201', '202'],
    );
    for (const path of [
      `tenants/${GLOBEX}`,
      `tenants/${GLOBEX}/extensions`,
      `tenants/${GLOBEX}/text_count`,
    ]) {
      const r = await acmeAdmin.get(path);
      assert.equal(r.status, 403, path);
      assert.deepEqual(r.body, { success: false, reason: 'Forbidden' });
    }
    const own = await globexAdmin.get(`tenants/${GLOBEX}`);
    assert.equal(own.status, 200);
    assert.equal(own.body.name, 'Globex');
    assert.equal((await globexAdmin.get(`tenants/${ACME}`)).status, 403);
    const tenants = await globexAdmin.get('tenants');
    assert.equal(tenants.body.total, '1');
    assert.equal(tenants.body.items[0].uuid, GLOBEX);
    const exts = await globexAdmin.get('extensions');
    assert.deepEqual(
      exts.body.items.map((e: { extension: string }) => e.extension),
      ['200', '201', '202'],
    );
    // Another tenant's extension by uuid, on the caller's own tenant path: not found.
    const cross = await globexAdmin.get(`tenants/${GLOBEX}/extensions/${ext('101')}/agent_state`);
    assert.equal(cross.status, 404);
    assert.deepEqual(cross.body, { success: false, reason: 'Not Found' });
  });

  test('unknown paths answer the 404 shape', async () => {
    const r = await clients.get('admin')!.get('nothing/here');
    assert.equal(r.status, 404);
    assert.deepEqual(r.body, { success: false, reason: 'Not Found' });
  });
});
