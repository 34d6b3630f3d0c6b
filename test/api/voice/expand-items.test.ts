import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simReset, startTestServer, type TestServer } from '../../helpers/server.js';
import { ADMIN, ALICE, BOB, CAROL, getJson, OPERATOR } from './voice-helpers.js';

/**
 * Issue 14, expand rule 1: an expanded item shows every attribute the caller may see on the item's
 * own resource, and no more; unexpanded items keep their summary. Every answer here is also checked
 * against the published OpenAPI document by the test server's contract checker.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());
beforeEach(() => simReset(s));

/** A resource as its own GET shows it, without the top-level curies. */
async function ownResource(auth: string, href: string) {
  const r = await getJson(s, href, auth);
  assert.equal(r.status, 200, href);
  const { curies: _curies, ...links } = r.body._links;
  return { ...r.body, _links: links };
}

const CALL_ATTRIBUTES = [
  'callId',
  'smdrCallId',
  'from',
  'to',
  'callState',
  'startTime',
  'answerTime',
  'talkDuration',
  'digitsDialed',
  'redirected',
  'transferred',
  'callParties',
];

describe('expanded items are their own resource', () => {
  test('GET /api/v1/calls?expand=item shows each call as GET calls/{id} does', async () => {
    const made = await getJson(s, '/api/v1/calls', BOB, {
      method: 'POST',
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);

    const plain = (await getJson(s, '/api/v1/calls', BOB)).body._embedded.calls;
    assert.equal(plain.length, 1, 'Bob’s own leg');
    for (const item of plain)
      assert.deepEqual(Object.keys(item), ['callId', 'smdrCallId', 'from', 'to', '_links']);

    for (const who of [BOB, CAROL]) {
      const expanded = (await getJson(s, '/api/v1/calls?expand=item', who)).body._embedded.calls;
      assert.equal(expanded.length, 1);
      const [item] = expanded;
      assert.deepEqual(
        Object.keys(item).filter((k) => k !== '_links'),
        CALL_ATTRIBUTES,
      );
      assert.deepEqual(item, await ownResource(who, item._links.self.href));
    }
  });

  test('filter names the Call attributes, expanded or not', async () => {
    await getJson(s, '/api/v1/calls', BOB, { method: 'POST', json: { from: '101@1001', to: '102' } });
    const carolLeg = (await getJson(s, '/api/v1/calls?expand=item', CAROL)).body._embedded.calls[0];
    const state = carolLeg.callState as string;
    const count = async (query: string) => {
      const r = await getJson(s, `/api/v1/calls?${query}`, CAROL);
      assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
      return r.body._embedded.calls.length as number;
    };
    assert.equal(await count(`expand=item&filter=eq(callState,${state})`), 1);
    assert.equal(await count(`filter=eq(callState,${state})`), 1);
    assert.equal(await count('expand=item&filter=eq(callState,held)'), 0);
    assert.equal(await count('expand=item&filter=eq(redirected,false)'), 1);
    assert.equal(await count('expand=item&filter=eq(transferred,true)'), 0);
    assert.equal(await count(`expand=item&filter=eq(digitsDialed,${carolLeg.digitsDialed})`), 1);
    assert.equal(await count('expand=item&filter=eq(digitsDialed,999)'), 0);
    assert.equal(await count('expand=item&filter=sw(startTime,2)'), 1);
    assert.equal(await count('expand=item&filter=est(answerTime)'), 1, 'null until answered, but present');
    assert.equal(await count('expand=item&filter=nem(answerTime)'), 0, 'not answered yet');
    const bad = await getJson(s, '/api/v1/calls?filter=gt(callState,1)', CAROL);
    assert.equal(bad.status, 400, 'gt applies to integers only');
  });

  test('phones embedded in users and extensions, and listed as a user’s phones, are the phone resource', async () => {
    const PHONE_ATTRIBUTES = ['tenantId', 'lineCount', 'acceptsReinvite', 'sendsReinvite', 'siteAssignment'];
    const sources: [auth: string, href: string, phones: (body: any) => any[]][] = [
      [BOB, '/api/v1/tenants/1001/users/101?expand=phones', (b) => b._embedded.phones],
      [ALICE, '/api/v1/tenants/1001/users/101?expand=all', (b) => b._embedded.phones],
      [ALICE, '/api/v1/tenants/1001/extensions/101?expand=phones', (b) => b._embedded.phones],
      [
        ALICE,
        '/api/v1/tenants/1001/extensions?expand=item.phones&filter=eq(extension,101)',
        (b) => b._embedded.extensions[0]._embedded.phones,
      ],
      [BOB, '/api/v1/tenants/1001/users/101/phones?expand=item', (b) => b._embedded.phones],
    ];
    for (const [auth, href, phonesIn] of sources) {
      const r = await getJson(s, href, auth);
      assert.equal(r.status, 200, href);
      const phones = phonesIn(r.body);
      assert.ok(phones.length > 0, `${href}: Bob has phones`);
      for (const phone of phones) {
        for (const a of PHONE_ATTRIBUTES) assert.ok(a in phone, `${href}: ${a}`);
        assert.deepEqual(phone, await ownResource(auth, phone._links.self.href), href);
      }
    }
    // Unexpanded, a phone shows the phone's summary, as the phones list does.
    const plain = await getJson(s, '/api/v1/tenants/1001/users/101/phones', BOB);
    const listed = await getJson(s, '/api/v1/tenants/1001/phones?filter=eq(ownerExtension,101)', BOB);
    assert.deepEqual(plain.body._embedded.phones, listed.body._embedded.phones);
    assert.deepEqual(Object.keys(plain.body._embedded.phones[0]), [
      'phoneId',
      'ownerExtension',
      'model',
      'registered',
      '_links',
    ]);
  });

  test('a user is one representation: GET, the expanded list, and the answers to POST and PUT', async () => {
    const list = await getJson(s, '/api/v1/tenants/1001/users?expand=item', ALICE);
    assert.equal(list.status, 200);
    for (const user of list.body._embedded.users)
      assert.deepEqual(user, await ownResource(ALICE, user._links.self.href), user.extension);
    const bob = await ownResource(ALICE, '/api/v1/tenants/1001/users/101');
    for (const a of ['extensionType', 'tenantId', 'isAgent', 'recordingType', 'accountId', 'admin'])
      assert.ok(a in bob, a);
    assert.ok(bob._embedded.phones.length > 0, 'with its phones');
    assert.equal(bob._links['v1:extension'].href, '/api/v1/tenants/1001/extensions/101');

    const put = await getJson(s, '/api/v1/tenants/1001/users/101', BOB, {
      method: 'PUT',
      json: { dnd: true },
    });
    assert.equal(put.status, 200);
    const { curies: _c, ...putLinks } = put.body._links;
    assert.deepEqual(
      { ...put.body, _links: putLinks },
      await ownResource(BOB, '/api/v1/tenants/1001/users/101'),
    );

    const post = await getJson(s, '/api/v1/tenants/1001/users', ALICE, {
      method: 'POST',
      json: { extension: '170', firstName: 'Quinn', pin: '2468' },
    });
    assert.equal(post.status, 201);
    const { curies: _d, ...postLinks } = post.body._links;
    assert.deepEqual(
      { ...post.body, _links: postLinks },
      await ownResource(ALICE, post.headers.get('location')!),
    );

    const location = await ownResource(ALICE, '/api/v1/tenants/1001/locations/150');
    const listed = (await getJson(s, '/api/v1/tenants/1001/locations?expand=item', ALICE)).body._embedded
      .locations;
    assert.deepEqual(
      listed.find((l: { extension: string }) => l.extension === '150'),
      location,
    );
  });

  test('a tenant is one representation: GET, the expanded list, and the answer to PUT', async () => {
    const list = await getJson(s, '/api/v1/tenants?expand=item', ADMIN);
    const acme = list.body._embedded.tenants.find((t: { tenantId: number }) => t.tenantId === 1001);
    const own = await ownResource(ADMIN, '/api/v1/tenants/1001');
    assert.deepEqual(acme, own);
    assert.equal(own._links['v1:extensions'].href, '/api/v1/tenants/1001/extensions');
    const put = await getJson(s, '/api/v1/tenants/1001', ADMIN, { method: 'PUT', json: { name: 'Acme' } });
    assert.equal(put.status, 200);
    const { curies: _c, ...links } = put.body._links;
    assert.deepEqual({ ...put.body, _links: links }, await ownResource(ADMIN, '/api/v1/tenants/1001'));
    const scoped = await getJson(s, '/api/v1/tenants/1001', OPERATOR);
    assert.equal(scoped.status, 200, 'a scoped telco user with CallControl still reads its tenant');
    assert.equal(scoped.body._links['v1:extensions'].href, '/api/v1/tenants/1001/extensions');
  });
});
