/**
 * Issue 14 finding 5: a name a client types (filter key, expand key, body property, query
 * parameter) reaches only the server's own tables, never what every object inherits
 * (`constructor`, `__proto__`, `toString`, ...). Performed over HTTP against a real server.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { suiteServer } from '../../helpers/server.js';
import { ADMIN, ALICE, getJson } from '../voice/voice-helpers.js';
import { BASE, CcClient } from '../ccs/cc-client.js';

const INHERITED = [
  'constructor.prototype',
  'constructor',
  '__proto__',
  '__proto__.x',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'phones.constructor',
  'phones.__proto__',
];

describe('client-typed names reach own properties only', () => {
  const server = suiteServer();

  test('every voice list resource answers 400 INVALID_FILTER for inherited filter keys', async () => {
    const s = server();
    const doc = (await (await s.fetch('/openapi/voice.json')).json()) as { paths: Record<string, object> };
    const paths = Object.entries(doc.paths)
      .filter(([p, ops]) => 'get' in ops && !/\{(?!tenantId\})/.test(p))
      .map(([p]) => p.replace('{tenantId}', '1001'));
    let lists = 0;
    for (const path of paths) {
      // A list resource refuses an unknown key; the others ignore `filter`.
      const baseline = await getJson(s, `${path}?filter=eq(noSuchKey,1)`, ADMIN);
      assert.ok(baseline.status < 500, `${path}: ${baseline.status}`);
      if (baseline.status !== 400 || baseline.body.errorCode !== 'INVALID_FILTER') continue;
      lists++;
      // Every list with the key that reached Object's prototype; the first lists with all of them.
      const keys = lists <= 3 ? INHERITED : ['constructor.prototype'];
      for (const key of keys) {
        for (const condition of [`eq(${key},1)`, `est(${key})`]) {
          const r = await getJson(s, `${path}?filter=${encodeURIComponent(condition)}`, ADMIN);
          assert.equal(r.status, 400, `${path} ${condition}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.errorCode, 'INVALID_FILTER', `${path} ${condition}`);
        }
      }
    }
    assert.ok(lists >= 20, `only ${lists} list resources found`);
  });

  test('expand with inherited names renders as without them', async () => {
    const s = server();
    // `phones.constructor` would expand phones: only names that start inherited.
    const names = INHERITED.filter((k) => !k.startsWith('phones.'));
    const plain = await getJson(s, '/api/v1/tenants/1001/extensions?expand=item', ALICE);
    const odd = await getJson(
      s,
      `/api/v1/tenants/1001/extensions?expand=item,${names.map(encodeURIComponent).join(',')},-constructor`,
      ALICE,
    );
    assert.equal(odd.status, 200);
    assert.deepEqual(odd.body, plain.body);
  });

  test('voice bodies naming __proto__ or constructor.prototype are refused with 400', async () => {
    const s = server();
    for (const text of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}']) {
      const r = await getJson(s, '/api/v1/tenants/1001/users/101', ALICE, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: text,
      });
      assert.equal(r.status, 400, text);
      assert.equal(r.body.status, 400);
    }
    assert.equal(({} as Record<string, unknown>).admin, undefined);
  });

  test('simulator bodies naming __proto__ are refused with 400 in its error shape', async () => {
    const s = server();
    const r = await getJson(s, '/sim/v1/clock/advance', ADMIN, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"__proto__":{"ms":5},"ms":1}',
    });
    assert.equal(r.status, 400);
    assert.equal(typeof r.body.error.code, 'string');
  });

  test('contact-center bodies and query strings with inherited names', async () => {
    const s = server();
    const cc = await CcClient.login(s, '100@1001');
    const bearer = { authorization: `Bearer ${cc.token}` };
    for (const q of ['__proto__=1', 'constructor=1&toString=2', 'hasOwnProperty=x&valueOf=y']) {
      for (const path of ['calls', 'calls/filter', 'tenants/1001/extensions', 'extensions']) {
        const r = await s.fetch(`${BASE}/${path}?${q}`, { headers: bearer });
        assert.ok(r.status < 500, `${path}?${q}: ${r.status}`);
        await r.body?.cancel();
      }
    }
    for (const text of ['{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}']) {
      const r = await s.fetch(`${BASE}/tenants/1001/extensions/101`, {
        method: 'PUT',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: text,
      });
      assert.equal(r.status, 400, text);
      assert.equal(((await r.json()) as { success: boolean }).success, false);
    }
  });
});
