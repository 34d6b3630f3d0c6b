import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, AUTHORITIES, BOB, LOBBY, OPERATOR, call, followable } from './provisioning-helpers.js';

const DEMO_MAC = '02:5b:0a:0f:46:8d'; // phone of 101@1001
const EXAMPLES = { langCode: 'en', macAddress: DEMO_MAC, accountId: 'PL1@1001' };

describe('provisioning relations', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  test('every relation of the v1 root of every authority can be followed', async () => {
    for (const who of AUTHORITIES) {
      const root = await call(s, 'GET', '/api/v1', who);
      assert.equal(root.status, 200);
      const rels = Object.entries(root.body._links).filter(([rel]) => rel.startsWith('v1:'));
      assert.ok(rels.length > 0, who);
      for (const [rel, l] of rels) {
        const href = followable((l as { href: string }).href, EXAMPLES);
        if (!href) continue; // needs a WebSocket id: the event API's own tests follow those
        const r = await call(s, 'GET', href, who);
        if (r.status === 405) {
          // An action resource (send message) is POST only.
          assert.equal(r.headers.get('allow'), 'POST', `${who} ${rel}`);
          continue;
        }
        assert.equal(r.status, 200, `${who} ${rel} ${href}: ${r.text.slice(0, 200)}`);
        assert.ok(r.body._links?.self, `${rel} has a self link`);
      }
    }
  });

  test('the tenants list links each tenant to its collections, and every link answers', async () => {
    const list = await call(s, 'GET', '/api/v1/tenants', ADMIN);
    const acme = list.body._embedded.tenants.find((t: { tenantId: number }) => t.tenantId === 1001);
    const rels = Object.keys(acme._links).filter((k) => k.startsWith('v1:'));
    for (const rel of ['v1:users', 'v1:callGroups', 'v1:dids', 'v1:parkLocationRanges', 'v1:dynamicSites'])
      assert.ok(rels.includes(rel), rel);
    assert.ok(!rels.includes('v1:externalContacts'), 'telco users do not manage external contacts');
    for (const rel of rels) {
      const r = await call(s, 'GET', acme._links[rel].href, ADMIN);
      assert.equal(r.status, 200, `${rel}: ${r.text.slice(0, 200)}`);
    }
  });

  test('system settings: GET and PUT, 400 naming the field, 405 for other verbs, 403 for others', async () => {
    const settings: [string, Record<string, unknown>, [Record<string, unknown>, string]][] = [
      [
        '/api/v1/defaultsystemannouncement',
        { announcementId: '1' },
        [{ announcementId: '99' }, 'announcementId'],
      ],
      ['/api/v1/defaultcodecset', { codecSetId: '2' }, [{ codecSetId: '99' }, 'codecSetId']],
      ['/api/v1/licensing', { userSeatsLicensed: 5 }, [{ userSeatsLicensed: -1 }, 'userSeatsLicensed']],
      ['/api/v1/pinnotificationsettings', { method: 'sms' }, [{ method: 'fax' }, 'method']],
      [
        '/api/v1/systemproperties',
        { outsideLinePrefix: '8' },
        [{ emergencyNumbers: ['x'] }, 'emergencyNumbers[0]'],
      ],
    ];
    for (const [path, change, [bad, field]] of settings) {
      const put = await call(s, 'PUT', path, ADMIN, { ...change, ignored: 1 });
      assert.equal(put.status, 200, put.text);
      const got = await call(s, 'GET', path, ADMIN);
      for (const [k, v] of Object.entries(change)) assert.deepEqual(got.body[k], v, `${path} ${k}`);
      assert.equal(got.body.ignored, undefined);
      const refused = await call(s, 'PUT', path, ADMIN, bad);
      assert.equal(refused.status, 400, refused.text);
      assert.deepEqual(refused.body.parameters, [{ type: 'field', value: field }]);
      const post = await call(s, 'POST', path, ADMIN, change);
      assert.equal(post.status, 405);
      assert.equal(post.headers.get('allow'), 'GET, HEAD, PUT');
      for (const who of [ALICE, BOB, LOBBY, OPERATOR])
        assert.equal((await call(s, 'GET', path, who)).status, 403, `${path} by ${who}`);
    }
    const licensing = await call(s, 'GET', '/api/v1/licensing', ADMIN);
    assert.equal(licensing.body.tenantsUsed, 2, 'computed from the directory');
    const codec = await call(s, 'GET', '/api/v1/defaultcodecset?expand=codecSet', ADMIN);
    assert.deepEqual(codec.body._embedded.codecSet.codecs, ['G729'], 'the default embeds its codec set');
  });

  test('concurrent creates get distinct ids, and a duplicate loses with 409', async () => {
    const before = (await call(s, 'GET', '/api/v1/zones', ADMIN)).body._embedded.zones.length;
    const made = await Promise.all(
      ['A', 'B', 'C'].map((n) => call(s, 'POST', '/api/v1/zones', ADMIN, { name: `Zone ${n}` })),
    );
    assert.deepEqual(
      made.map((r) => r.status),
      [201, 201, 201],
    );
    assert.equal(new Set(made.map((r) => r.body.zoneId)).size, 3);
    assert.equal((await call(s, 'GET', '/api/v1/zones', ADMIN)).body._embedded.zones.length, before + 3);
    const twins = await Promise.all(
      [ALICE, OPERATOR].map((who) =>
        call(s, 'POST', '/api/v1/tenants/1001/users', who, {
          extension: '177',
          firstName: 'Twin',
          pin: '1234',
        }),
      ),
    );
    assert.deepEqual(twins.map((r) => r.status).sort(), [201, 409]);
  });

  test('HEAD answers like GET without a body', async () => {
    const head = await s.fetch('/api/v1/zones', { method: 'HEAD', auth: ADMIN });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /application\/hal\+json/);
    assert.equal(await head.text(), '');
    assert.equal((await s.fetch('/api/v1/zones', { method: 'HEAD', auth: BOB })).status, 403);
    assert.equal((await s.fetch('/api/v1/zones/999', { method: 'HEAD', auth: ADMIN })).status, 404);
  });

  test('read-only and update-only collections answer 405 for the verbs they lack', async () => {
    const files = await call(s, 'GET', '/api/v1/defaultannouncementfiles/fr', ADMIN);
    assert.equal(files.body._embedded.defaultAnnouncementFiles.length, 3);
    assert.ok(files.body._embedded.defaultAnnouncementFiles.every((f: { fileId: string }) => f.fileId));
    assert.equal(
      (await call(s, 'POST', '/api/v1/defaultannouncementfiles/fr', ADMIN, { fileName: 'a.wav' })).status,
      405,
    );
    const unknown = await call(s, 'GET', '/api/v1/defaultannouncementfiles/xx', ADMIN);
    assert.equal(unknown.status, 404, 'files are per provisioned language');
    assert.equal(unknown.body.errorCode, 'LANGUAGE_NOT_FOUND');
    assert.equal((await call(s, 'POST', '/api/v1/runningtasks', ADMIN, {})).status, 405);
    assert.equal((await call(s, 'DELETE', '/api/v1/runningtasks/1', ADMIN)).status, 405);
    const put = await call(s, 'PUT', '/api/v1/standarddhcpoptions/66', ADMIN, {
      value: 'tftp2.example.test',
      name: 'x',
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.value, 'tftp2.example.test');
    assert.equal(put.body.name, 'TFTP server name', 'a read-only property is ignored');
    const del = await call(s, 'DELETE', '/api/v1/standarddhcpoptions/66', ADMIN);
    assert.equal(del.status, 405);
    assert.equal(del.headers.get('allow'), 'GET, HEAD, PUT');
    assert.equal((await call(s, 'DELETE', '/api/v1/tenants/1001/phonemodels/bst', BOB)).status, 405);
  });

  test('the MAC address lookup finds the provisioned phone', async () => {
    const found = await call(s, 'GET', `/api/v1/macaddresses?macAddress=${DEMO_MAC.toUpperCase()}`, ADMIN);
    assert.equal(found.status, 200);
    assert.deepEqual(
      found.body._embedded.macAddresses.map((m: Record<string, unknown>) => [
        m.tenantId,
        m.phoneId,
        m.ownerExtension,
      ]),
      [[1001, 'ph1001-101', '101']],
    );
    const none = await call(s, 'GET', '/api/v1/macaddresses?macAddress=02:00:00:00:00:01', ADMIN);
    assert.deepEqual(none.body._embedded.macAddresses, []);
    const bad = await call(s, 'GET', '/api/v1/macaddresses?macAddress=nope', ADMIN);
    assert.equal(bad.status, 400);
    assert.equal((await call(s, 'GET', `/api/v1/macaddresses?macAddress=${DEMO_MAC}`, OPERATOR)).status, 403);
  });

  test('references embed for expand and are filter keys through the embed', async () => {
    const plain = await call(s, 'GET', '/api/v1/routes/1', ADMIN);
    assert.equal(plain.body._links['v1:carrier'].href, '/api/v1/carriers/1');
    assert.deepEqual(Object.keys(plain.body._embedded.carrier).sort(), ['_links', 'carrierId', 'name']);
    const expanded = await call(s, 'GET', '/api/v1/routes/1?expand=carrier', ADMIN);
    assert.equal(expanded.body._embedded.carrier.host, 'sip.carrier.example.test');
    const summary = await call(s, 'GET', '/api/v1/routes', ADMIN);
    assert.equal(summary.body._embedded.routes[0].routeType, undefined, 'list elements show their summary');
    const items = await call(s, 'GET', '/api/v1/routes?expand=item', ADMIN);
    assert.equal(items.body._embedded.routes[0].routeType, 'sip');
    const hit = await call(s, 'GET', '/api/v1/routes?filter=eq(carrier.name,Example%20Carrier)', ADMIN);
    assert.equal(hit.body._embedded.routes.length, 1);
    const miss = await call(s, 'GET', '/api/v1/routes?filter=eq(carrier.name,Nope),eq(priority,7)', ADMIN);
    assert.equal(miss.body._embedded.routes.length, 0);
    const typed = await call(s, 'GET', '/api/v1/routes?filter=gt(priority,x)', ADMIN);
    assert.equal(typed.status, 400);
  });

  test('a record still referred to is not deleted; the referrer links and embeds it', async () => {
    for (const [path, by] of [
      ['/api/v1/carriers/1', 'routes 1'],
      ['/api/v1/routes/1', 'dialPlans 1'],
      ['/api/v1/codecsets/1', 'zones 1'],
      ['/api/v1/announcements/1', 'defaultSystemAnnouncement'],
    ]) {
      const r = await call(s, 'DELETE', path, ADMIN);
      assert.equal(r.status, 409, `${path}: ${r.text}`);
      assert.equal(r.body.errorCode, 'IN_USE');
      assert.match(r.body.detail, new RegExp(by));
    }
    const plan = await call(s, 'GET', '/api/v1/dialplans/1?expand=routes', ADMIN);
    assert.deepEqual(plan.body._links['v1:routes'], [{ href: '/api/v1/routes/1' }]);
    assert.equal(plan.body._embedded.routes[0].routeType, 'sip');
    const acd = await call(s, 'DELETE', '/api/v1/tenants/1001/acds/500', ALICE);
    assert.equal(acd.status, 409, 'the main menu and a DID still route to the Sales ACD');
    assert.match(acd.body.detail, /DID \+15555550150/);
    const unused = await call(s, 'POST', '/api/v1/codecsets', ADMIN, { name: 'Spare', codecs: ['G711A'] });
    assert.equal((await call(s, 'DELETE', unused.headers.get('location')!, ADMIN)).status, 200);
  });

  test('a user sees and changes only their own record, never its admin-only fields', async () => {
    const mine = await call(s, 'GET', '/api/v1/tenants/1001/users', BOB);
    assert.deepEqual(
      mine.body._embedded.users.map((u: { extension: string }) => u.extension),
      ['101'],
    );
    const phones = await call(s, 'GET', '/api/v1/tenants/1001/phones', BOB);
    assert.deepEqual(
      phones.body._embedded.phones.map((p: { ownerExtension: string }) => p.ownerExtension),
      ['101'],
    );
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1001/phones/ph1001-102', BOB)).status, 403);
    const dnd = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', BOB, { dnd: true });
    assert.equal(dnd.status, 200, dnd.text);
    assert.equal(dnd.body.dnd, true);
    const admin = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', BOB, { admin: true });
    assert.equal(admin.status, 403);
    assert.deepEqual(admin.body.parameters, [{ type: 'field', value: 'admin' }]);
    assert.equal((await call(s, 'PUT', '/api/v1/tenants/1001/users/102', BOB, { dnd: true })).status, 403);
    assert.equal((await call(s, 'DELETE', '/api/v1/tenants/1001/users/101', BOB)).status, 403);
    assert.equal((await call(s, 'PUT', '/api/v1/tenants/1001/users/101', BOB, { dnd: false })).status, 200);
  });

  test('changing a PIN drops the cached credentials at once', async () => {
    assert.equal((await call(s, 'GET', '/api/v1', '102@1001:1234')).status, 200);
    const changed = await call(s, 'PUT', '/api/v1/tenants/1001/users/102', '102@1001:1234', { pin: '9876' });
    assert.equal(changed.status, 200, changed.text);
    assert.equal((await call(s, 'GET', '/api/v1', '102@1001:1234')).status, 401);
    assert.equal((await call(s, 'GET', '/api/v1', '102@1001:9876')).status, 200);
    const disabled = await call(s, 'PUT', '/api/v1/tenants/1001/users/102', ALICE, { enabled: false });
    assert.equal(disabled.status, 200);
    assert.equal(
      (await call(s, 'GET', '/api/v1', '102@1001:9876')).status,
      401,
      'a disabled user is refused',
    );
    await call(s, 'PUT', '/api/v1/tenants/1001/users/102', ALICE, { enabled: true, pin: '1234' });
  });

  test('tenants never reach each other, and cross-record rules hold', async () => {
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1002/users', ALICE)).status, 403);
    assert.equal((await call(s, 'POST', '/api/v1/tenants/1002/dids', OPERATOR, {})).status, 403);
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1002/externalcontacts', BOB)).status, 403);
    const taken = await call(s, 'POST', '/api/v1/tenants/1001/users', ALICE, {
      extension: '500',
      firstName: 'Dup',
      pin: '1234',
    });
    assert.equal(taken.status, 409, 'an extension number is unique in its tenant');
    const did = await call(s, 'POST', '/api/v1/tenants/1001/dids', ALICE, {
      number: '+15555550150',
      extension: '101',
    });
    assert.equal(did.status, 409, 'a DID number is provisioned once');
    const notEmpty = await call(s, 'DELETE', '/api/v1/tenants/1002', ADMIN);
    assert.equal(notEmpty.status, 409, 'a tenant with extensions is deactivated, not deleted');
    assert.equal(
      (await call(s, 'POST', '/api/v1/tenants', ADMIN, { tenantId: 1004, name: 'Brief' })).status,
      201,
    );
    const kp = await call(s, 'POST', '/api/v1/tenants/1004/keyprofiles', ADMIN, {
      name: 'K',
      phoneModel: 'bst',
    });
    assert.equal(kp.status, 201, kp.text);
    assert.equal((await call(s, 'DELETE', '/api/v1/tenants/1004', ADMIN)).status, 200);
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1004/keyprofiles', ADMIN)).status, 404);
    assert.equal(
      (await call(s, 'POST', '/api/v1/tenants', ADMIN, { tenantId: 1004, name: 'Again' })).status,
      201,
    );
    const again = await call(s, 'GET', '/api/v1/tenants/1004/keyprofiles', ADMIN);
    assert.deepEqual(again.body._embedded.keyProfiles, [], 'a deleted tenant leaves no records behind');
  });
});

/** Example ids of the demo world for the uridictionary's configuration templates. */
const DEMO_IDS: Record<string, string> = {
  tenantId: '1001',
  extension: '101',
  phoneId: 'ph1001-101',
  didId: 'did-1001-0100',
  callGroupId: '600',
  acdId: '500',
  autoAttendantId: '700',
  externalContactId: '1',
  businessHourId: '1',
  keyProfileId: '1',
  callPermissionProfileId: '1',
  callpId: '1',
};
/** Templates whose variable names a record of another kind than the shared example. */
const PER_TEMPLATE: Record<string, Record<string, string>> = {
  'v1:location': { extension: '150' },
  'v1:staticSite': { siteId: 'site-1001-hq' },
  'v1:dynamicSite': { siteId: 'site-1001-remote' },
};
const SKIPPED = /callObserverId|webSocketId|accountId|deviceId/;

describe('the uridictionary’s configuration templates', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  test('every configuration template a requester sees leads to a record', async () => {
    let followed = 0;
    for (const who of [ADMIN, OPERATOR, ALICE]) {
      const dict = await call(s, 'GET', '/api/v1/uridictionary', who);
      assert.equal(dict.status, 200);
      for (const [rel, l] of Object.entries(
        dict.body._links as Record<string, { href: string; templated?: boolean }>,
      )) {
        if (!rel.startsWith('v1:') || SKIPPED.test(l.href) || rel.includes('presence')) continue;
        // Filled with a tenant admin's own extension, which is a user, not a location.
        if (rel === 'v1:location' && !l.templated) continue;
        const vars = { ...DEMO_IDS, ...PER_TEMPLATE[rel] };
        const href = l.href.replace(
          /\{(\w+)\}/g,
          (whole, name: string) => vars[name] ?? (/Id$/.test(name) ? '1' : whole),
        );
        const r = await call(s, 'GET', href, who);
        assert.equal(r.status, 200, `${who} ${rel} ${href}: ${r.text.slice(0, 200)}`);
        followed++;
      }
    }
    assert.ok(followed >= 40, `followed ${followed} templates`);
  });
});
