import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { ALICE, getJson } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const LIST = '/api/v1/tenants/1001/extensions';

async function exts(query: string): Promise<string[]> {
  const r = await getJson(s, `${LIST}?${query}`, ALICE);
  assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  return r.body._embedded.extensions.map((e: { extension: string }) => e.extension);
}

describe('filter over HTTP (extensions of 1001)', () => {
  const cases: [string, string[]][] = [
    ['filter=eq(extension,101)', ['101']],
    ['filter=ne(extensionType,userExt)', ['150', '500', '501', '600', '700']],
    ['filter=eq(agent,true)', ['101', '102', '103', '104']],
    ['filter=ne(agent,true)', ['100', '105', '150', '500', '501', '600', '700']],
    ['filter=ct(name,Brown)', ['101']],
    ['filter=ct(name,brown)', []],
    ['filter=ci(name,BROWN)', ['101']],
    ['filter=sw(name,Hunt)', ['600']],
    ['filter=ew(lastName,en)', ['102']],
    ['filter=eq(name,Bob%20Brown)', ['101']],
    ['filter=eq(name,Hunt%20group)', ['600']],
    ['filter=est(siteId)', ['100', '101', '102', '103', '104', '105', '150']],
    ['filter=nes(siteId)', ['500', '501', '600', '700']],
    ['filter=emp(lastName)', ['150', '500', '501', '600', '700']],
    ['filter=nem(lastName)', ['100', '101', '102', '103', '104', '105']],
    ['filter=emp(phones)', ['500', '501', '600', '700']],
    ['filter=nem(phones)', ['100', '101', '102', '103', '104', '105', '150']],
    ['filter=eq(phones.model,bst)', ['104']],
    ['filter=eq(phones.registered,true)&filter=eq(extensionType,locationExt)', ['150']],
    ['filter=eq(extension,101),eq(extension,700)', ['101', '700']],
    ['filter=eq(extension,101),eq(extension,700)&filter=eq(agent,true)', ['101']],
    ['extensionType=acdExt', ['500', '501']],
    ['agent=true&filter=ci(name,c)', ['102']],
  ];
  for (const [q, want] of cases) test(q, async () => assert.deepEqual(await exts(q), want));

  test('gt ge lt le on integers (device states, tenantId)', async () => {
    const ids = async (q: string) =>
      (
        await getJson(s, `/api/v1/devicestates?expand=item&${q}`, 'admin:admin')
      ).body._embedded.deviceStates.map((d: { tenantId: number }) => d.tenantId);
    assert.deepEqual(await ids('filter=gt(tenantId,1001)'), [1002, 1002, 1002]);
    assert.equal((await ids('filter=ge(tenantId,1001)')).length, 10);
    assert.deepEqual(new Set(await ids('filter=lt(tenantId,1002)')), new Set([1001]));
    assert.equal((await ids('filter=le(tenantId,1000)')).length, 0);
  });

  const errors = [
    'filter=eq(extension)',
    'filter=eq(extension,)',
    'filter=gt(name,a)',
    'filter=ct(agent,true)',
    'filter=eq(agent,maybe)',
    'filter=zz(name,a)',
    'filter=eq(pinHash,a)', // not a visible key
    'filter=eq(phones.nothing,a)',
    'filter=eq(nothing.model,a)',
    'filter=est(name,x)',
    'filter=eq(phones,x)',
    'filter=name',
    'filter=eq(name,%ZZ)',
    'filter=eq(extension,101),',
  ];
  for (const q of errors) {
    test(`400: ${q}`, async () => {
      const r = await getJson(s, `${LIST}?${q}`, ALICE);
      assert.equal(r.status, 400);
      assert.equal(r.body.errorCode, 'INVALID_FILTER');
      assert.equal(r.body.parameters[0].type, 'filterCondition');
    });
  }
  test('400: bad extensionType and agent query values', async () => {
    assert.equal((await getJson(s, `${LIST}?extensionType=phone`, ALICE)).status, 400);
    assert.equal((await getJson(s, `${LIST}?agent=yes`, ALICE)).status, 400);
  });
});

describe('expand over HTTP', () => {
  const first = async (q: string) =>
    (await getJson(s, `${LIST}?filter=eq(extension,101)&${q}`, ALICE)).body._embedded.extensions[0];
  test('un-expanded list elements show their summary', async () => {
    assert.deepEqual(Object.keys(await first('')).sort(), ['_links', 'extension', 'extensionType', 'name']);
  });
  test('item shows every property and keeps embeds un-expanded', async () => {
    const e = await first('expand=item');
    assert.equal(e.accountId, '101@1001');
    // Issue 14: an unexpanded phone shows the phone's own summary, as the phones list does.
    assert.deepEqual(Object.keys(e._embedded.phones[0]).sort(), [
      '_links',
      'model',
      'ownerExtension',
      'phoneId',
      'registered',
    ]);
  });
  test('an embed name expands it (and its owner); -embed excludes it from all', async () => {
    const e = await first('expand=phones');
    assert.equal(e.accountId, '101@1001');
    assert.equal(e._embedded.phones[0].registered, true);
    const all = await first('expand=item.all');
    assert.equal(all._embedded.phones[0].macAddress.length, 17);
    const excluded = await first('expand=item.all,-phones');
    assert.equal(excluded._embedded.phones[0].macAddress, undefined);
    assert.equal(excluded.accountId, '101@1001');
  });
  test('unknown keys are ignored; entities expand their embeds too', async () => {
    assert.deepEqual(Object.keys(await first('expand=nothing,x.y')).sort(), [
      '_links',
      'extension',
      'extensionType',
      'name',
    ]);
    const user = await getJson(s, '/api/v1/tenants/1001/users/101?expand=phones', ALICE);
    assert.equal(user.body._embedded.phones[0].registered, true);
    const plain = await getJson(s, '/api/v1/tenants/1001/users/101', ALICE);
    // Unexpanded, the phone's summary as the phones list shows it (issue 14: one representation).
    assert.equal(plain.body._embedded.phones[0].macAddress, undefined);
    assert.equal(plain.body._embedded.phones[0].lineCount, undefined);
  });
});
