/**
 * Issue 14 finding 8: no cross-site writes. A web page can POST a form or text/plain anywhere
 * without asking first; every state-changing request must be JSON, or have no body and no type.
 * Performed over HTTP against a real server, on the three APIs, each answering in its own shape.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';
import { BASE, CcClient } from '../ccs/cc-client.js';
import { ADMIN, ALICE } from '../voice/voice-helpers.js';

/** The types a browser sends without a CORS preflight, and two that are simply not JSON. */
const FOREIGN = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  '',
];

async function send(
  s: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
) {
  const r = await s.fetch(path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : undefined };
}

describe('state-changing requests are JSON only (415)', () => {
  const server = suiteServer();

  test('simulator: a form or text/plain cannot reset or drive it, with or without a body', async () => {
    const s = server();
    const auth = { authorization: basic(ADMIN) };
    for (const type of FOREIGN) {
      for (const body of [undefined, '', 'seconds=5']) {
        const r = await send(s, 'POST', '/sim/v1/reset', { ...auth, 'content-type': type }, body);
        assert.equal(r.status, 415, `${type} ${body}`);
        assert.equal(r.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
      }
    }
    // Without credentials the request goes no further than authentication.
    const anon = await send(s, 'POST', '/sim/v1/clock/advance', { 'content-type': 'text/plain' }, '{"ms":5}');
    assert.equal(anon.status, 401);
    // A body without any type is refused; bodyless without a type, or JSON, is fine.
    const untyped = await s.fetch('/sim/v1/clock/advance', {
      method: 'POST',
      headers: auth,
      body: new Blob(['{"ms":5}']),
    });
    assert.equal(untyped.status, 415);
    await untyped.body?.cancel();
    assert.equal((await send(s, 'POST', '/sim/v1/reset', auth)).status, 204);
    const json = await send(
      s,
      'POST',
      '/sim/v1/clock/advance',
      { ...auth, 'content-type': 'application/json; charset=utf-8' },
      '{"ms":1}',
    );
    assert.equal(json.status, 200);
  });

  test('voice: POST, PUT and DELETE refuse foreign types as problem+json, bodyless ones included', async () => {
    const s = server();
    const auth = { authorization: basic(ALICE) };
    const cases: [string, string][] = [
      ['POST', '/api/v1/calls'],
      ['PUT', '/api/v1/tenants/1001/users/101'],
      ['DELETE', '/api/v1/tenants/1001/users/101'],
      ['POST', '/api/v1/sendmessage/tenants/1001/alertusers'],
    ];
    for (const [method, path] of cases) {
      for (const type of FOREIGN) {
        const r = await send(
          s,
          method,
          path,
          { ...auth, 'content-type': type },
          method === 'DELETE' ? undefined : 'a=1',
        );
        assert.equal(r.status, 415, `${method} ${path} ${type}`);
        assert.equal(r.body.errorCode, 'UNSUPPORTED_MEDIA_TYPE');
        assert.equal(r.body.status, 415);
      }
    }
    // The user is still there: the refused DELETE did nothing.
    const still = await s.fetch('/api/v1/tenants/1001/users/101', { headers: auth });
    assert.equal(still.status, 200);
    await still.body?.cancel();
  });

  test('contact center: writes refuse foreign types; the token grant keeps its form', async () => {
    const s = server();
    const cc = await CcClient.login(s, '100@1001');
    const bearer = { authorization: `Bearer ${cc.token}` };
    for (const [method, path] of [
      ['PUT', '/tenants/1001/extensions/101'],
      ['POST', '/tenants/1001/text_count'],
      ['POST', '/agent_state'],
    ] as const) {
      for (const type of FOREIGN) {
        const r = await send(s, method, `${BASE}${path}`, { ...bearer, 'content-type': type }, 'a=1');
        assert.equal(r.status, 415, `${method} ${path} ${type}`);
        assert.deepEqual(r.body, { success: false, reason: 'Unsupported Media Type' });
      }
    }
    const form = await send(
      s,
      'POST',
      `${BASE}/oauth/token`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      'grant_type=password&username=100%401001&password=1234',
    );
    assert.equal(form.status, 200);
    assert.equal(typeof form.body.access_token, 'string');
    const text = await send(s, 'POST', `${BASE}/oauth/token`, { 'content-type': 'text/plain' }, 'x');
    assert.equal(text.status, 415);
  });
});
