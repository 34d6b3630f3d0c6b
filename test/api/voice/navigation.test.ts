import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ADMIN, ALICE, BOB, GRACE, getJson, LOBBY, OPERATOR } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const rels = (body: { _links: Record<string, unknown> }) =>
  Object.keys(body._links)
    .filter((k) => k.startsWith('v1:'))
    .map((k) => k.slice(3))
    .sort();

// Written from the spec's v1 root table, independently of the server's copy.
const TELCO_TBAM = [
  'tenants',
  'systemAnnouncements',
  'defaultSystemAnnouncement',
  'customAnnouncementFiles',
  'defaultAnnouncementFiles',
  'enterprises',
  'macAddresses',
  'runningTasks',
];
const TELCO_TBAM_SM = [
  'languages',
  'aaLanguages',
  'vmLanguages',
  'crPlatforms',
  'codecSets',
  'brandDetails',
  'serviceProviders',
  'conferenceServers',
  'rtpProxyServers',
  'licensing',
  'pinNotificationSettings',
];
const TELCO_SM = [
  'priGroups',
  'routes',
  'dialPlans',
  'standardDhcpOptions',
  'customDhcpOptions',
  'carriers',
  'phoneAccessEntries',
  'systemProperties',
];
const TELCO_ZONES = ['zones', 'defaultSystemCodecSet'];
const TELCO_EM = ['voicemailServers', 'appServers', 'gateways', 'mediaServers', 'callpServers'];
const CC_TA_U = [
  'activeCalls',
  'eventSubscriptionSets',
  // Beyond the spec's table (issue 18): signed webhooks, docs/events.md.
  'webhooks',
  'extensions',
  'presenceStatusByExtension',
  'presenceStatusTenantParkLocations',
  'parkLocationStatus',
];
const CC_TA = ['presenceStatusTenantAccounts', 'sendMessageUsers', 'sendMessageSites', 'tenant'];

describe('navigation', () => {
  test('/api: tenantId and tenantName only for subscribers and scoped telco', async () => {
    for (const [auth, tenant] of [
      [BOB, 1001],
      [GRACE, 1002],
      [OPERATOR, 1001],
      [ADMIN, undefined],
    ] as const) {
      const { status, headers, body } = await getJson(s, '/api', auth);
      assert.equal(status, 200);
      assert.match(headers.get('content-type')!, /^application\/hal\+json/);
      assert.equal(body.tenantId, tenant, auth);
      assert.equal(
        body.tenantName,
        tenant === undefined ? undefined : tenant === 1001 ? 'Acme Corp' : 'Globex',
      );
      assert.deepEqual(body._links['api:createWebsocket'], { href: '/api/ws' });
      assert.deepEqual(body._links['api:v1'], { href: '/api/v1' });
      assert.deepEqual(body._links.curies, [{ name: 'api', href: '/api/releases/{rel}', templated: true }]);
    }
  });

  test('/api/v1 shows exactly the relations of the root table per authority', async () => {
    const expected: Record<string, string[]> = {
      [ADMIN]: [
        ...TELCO_TBAM,
        ...TELCO_TBAM_SM,
        ...TELCO_SM,
        ...TELCO_ZONES,
        ...TELCO_EM,
        'deviceStates',
        'uriDictionary',
      ],
      [OPERATOR]: [...CC_TA_U, ...CC_TA, 'deviceStates', 'uriDictionary'],
      [ALICE]: [
        ...CC_TA_U,
        ...CC_TA,
        'languages',
        'aaLanguages',
        'vmLanguages',
        'user',
        'userPhones',
        'externalContacts',
        'uriDictionary',
      ],
      [BOB]: [
        ...CC_TA_U,
        'languages',
        'vmLanguages',
        'tenantPhoneModels',
        'user',
        'userPhones',
        'externalContacts',
      ],
      [LOBBY]: [
        ...CC_TA_U,
        'languages',
        'vmLanguages',
        'tenantPhoneModels',
        'location',
        'userPhones',
        'externalContacts',
      ],
    };
    for (const [auth, want] of Object.entries(expected)) {
      const { body } = await getJson(s, '/api/v1', auth);
      assert.deepEqual(rels(body), [...want].sort(), auth);
      assert.equal(body._links.curies[0].href, '/api/v1/rels/{rel}');
    }
  });

  test('templated links are filled with what the server knows of the requester', async () => {
    const { body } = await getJson(s, '/api/v1', BOB);
    assert.deepEqual(body._links['v1:user'], { href: '/api/v1/tenants/1001/users/101' });
    assert.deepEqual(body._links['v1:extensions'], {
      href: '/api/v1/tenants/1001/extensions{?expand,filter,extensionType,agent}',
      templated: true,
    });
    assert.deepEqual(body._links['v1:eventSubscriptionSets'], {
      href: '/api/v1/subscriptions/ws/{webSocketId}/subscriptionsets',
      templated: true,
    });
    const op = await getJson(s, '/api/v1', OPERATOR);
    assert.deepEqual(op.body._links['v1:presenceStatusByExtension'], {
      href: '/api/v1/presencestatus/tenants/1001/extensions/{extension}',
      templated: true,
    });
  });

  test('uridictionary: a HAL document of templates with visibility', async () => {
    const ta = await getJson(s, '/api/v1/uridictionary', ALICE);
    assert.equal(ta.status, 200);
    const taKeys = Object.keys(ta.body).filter((k) => !k.startsWith('_'));
    assert.deepEqual(taKeys, []);
    assert.deepEqual(ta.body._links['v1:call'], { href: '/api/v1/calls/{callObserverId}', templated: true });
    assert.equal(ta.body._links['v1:deviceState'], undefined);
    assert.equal(ta.body._links['v1:gateway'], undefined);
    assert.ok(ta.body._links['v1:user']);
    const op = await getJson(s, '/api/v1/uridictionary', OPERATOR);
    assert.ok(op.body._links['v1:deviceState']);
    const admin = await getJson(s, '/api/v1/uridictionary', ADMIN);
    assert.ok(admin.body._links['v1:gateway']);
    assert.equal(admin.body._links['v1:call'], undefined);
    assert.equal((await getJson(s, '/api/v1/uridictionary', BOB)).status, 403);
  });

  test('enums: 44, each readable by every authority', async () => {
    const { body } = await getJson(s, '/api/v1/enums', BOB);
    const list = body._embedded.enums as { name: string; _links: { self: { href: string } } }[];
    assert.equal(list.length, 44);
    const ext = await getJson(s, '/api/v1/enums/extensiontype', LOBBY);
    assert.deepEqual(
      ext.body.values.map((v: { name: string }) => v.name),
      ['userExt', 'locationExt', 'acdExt', 'groupExt', 'autoAttendantExt'],
    );
    const cr = await getJson(s, '/api/v1/enums/callrequest', ADMIN);
    assert.deepEqual(
      cr.body.values.map((v: { name: string }) => v.name),
      ['answerCall', 'hangupCall', 'deflectCall', 'holdCall', 'resumeHeldCall', 'transfer', 'parkCall'],
    );
    for (const e of list) {
      const r = await getJson(s, e._links.self.href, OPERATOR);
      assert.equal(r.status, 200, e.name);
      assert.ok(r.body.values.length > 0, e.name);
      for (const v of r.body.values) assert.equal(typeof v.defaultLabel, 'string');
    }
    assert.equal((await getJson(s, '/api/v1/enums/nosuch', BOB)).body.errorCode, 'ENUM_NOT_FOUND');
  });

  test('curies lead to relation documents', async () => {
    const v1 = await getJson(s, '/api/v1/rels/extensions', BOB);
    assert.equal(v1.status, 200);
    assert.equal(v1.body.rel, 'extensions');
    const api = await getJson(s, '/api/releases/createWebsocket', BOB);
    assert.equal(api.status, 200);
    assert.equal((await getJson(s, '/api/v1/rels/nothing', BOB)).status, 404);
  });

  test('HEAD answers like GET without a body; other verbs get 405 with Allow', async () => {
    for (const path of [
      '/api',
      '/api/v1',
      '/api/v1/enums',
      '/api/v1/calls',
      '/api/v1/tenants/1001/extensions',
    ]) {
      const get = await s.fetch(path, { auth: ALICE });
      const head = await s.fetch(path, { auth: ALICE, method: 'HEAD' });
      assert.equal(head.status, 200, path);
      assert.equal(head.headers.get('content-type'), get.headers.get('content-type'));
      assert.equal(await head.text(), '');
    }
    const del = await s.fetch('/api/v1', { auth: ALICE, method: 'DELETE' });
    assert.equal(del.status, 405);
    assert.equal(del.headers.get('allow'), 'GET, HEAD');
    assert.match(del.headers.get('content-type')!, /^application\/problem\+json/);
    // A verb the path lacks (405); calls-status.test.ts sends a body that is not JSON (415).
    const put = await s.fetch('/api/v1/calls', {
      auth: ALICE,
      method: 'PUT',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD, POST');
    const patch = await s.fetch('/api/v1/enums', { auth: ALICE, method: 'PATCH' });
    assert.equal(patch.status, 405);
  });

  test('errors are problem+json; 401 carries WWW-Authenticate', async () => {
    const r = await getJson(s, '/api/v1', '101@1001:0000');
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate')!, /^Basic/);
    assert.equal(r.body.errorCode, 'UNAUTHORIZED');
    assert.deepEqual(Object.keys(r.body).sort(), [
      'detail',
      'errorCode',
      'parameters',
      'status',
      'title',
      'type',
    ]);
    const none = await s.fetch('/api/v1');
    assert.equal(none.status, 401);
    const nf = await getJson(s, '/api/v1/nowhere', BOB);
    assert.equal(nf.status, 404);
    assert.equal(nf.body.status, 404);
    assert.equal(nf.body.errorCode, 'NOT_FOUND');
  });

  test('path parameters are checked as documented: a tenantId that is not digits is 400 naming it', async () => {
    for (const path of [
      '/api/v1/tenants/abc',
      '/api/v1/tenants/1001x/extensions',
      '/api/v1/presencestatus/tenants/abc/extensions/101',
    ]) {
      const r = await getJson(s, path, OPERATOR);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.errorCode, 'INVALID_FIELD', path);
      assert.deepEqual(r.body.parameters, [{ type: 'field', value: 'tenantId' }], path);
    }
    // A well-formed tenant of someone else is still refused for the tenant, not the format.
    const other = await getJson(s, '/api/v1/tenants/1002', OPERATOR);
    assert.equal(other.status, 403);
    assert.equal(other.body.errorCode, 'TENANT_FORBIDDEN');
  });

  test('a body over the limit is 413 in problem+json', async () => {
    const small = await startTestServer({ bodyLimitBytes: 100 });
    try {
      const r = await getJson(small, '/api/v1/calls', BOB, {
        method: 'POST',
        body: JSON.stringify({ from: '101@1001', to: 'x'.repeat(500) }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(r.status, 413);
      assert.equal(r.body.errorCode, 'BODY_TOO_LARGE');
    } finally {
      await small.stop();
    }
  });
});
