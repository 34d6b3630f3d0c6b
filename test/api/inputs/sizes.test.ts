/**
 * Issue 14 finding 7: everything has a size. Long strings, control characters and unpaired
 * surrogates are refused with 400 naming the field (in each API's error body), bodies are capped
 * per route well below the operator's 1 MiB, and per-tenant and per-socket counts have maxima
 * with a clear 409. Performed over HTTP and WebSocket against a real server.
 */
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LIMITS } from '../../../src/api/schema/bounds.js';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';
import { CcClient } from '../ccs/cc-client.js';
import { ADMIN, ALICE, BOB, getJson, openSocket } from '../voice/voice-helpers.js';

const LONG = 'x'.repeat(LIMITS.stringLength + 1);
/** Written as JSON escapes, so that the unpaired surrogate reaches the server as such. */
const RAW_BAD = ['"Bob\\u0000"', '"Bob\\u0007"', '"Bob\\ud800"', '"\\udc00Bob"', '"Bob\\nBrown"'];

const putUser = (s: TestServer, rawFirstName: string) =>
  getJson(s, '/api/v1/tenants/1001/users/101', ALICE, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: `{"firstName":${rawFirstName}}`,
  });

describe('everything has a size', () => {
  const server = suiteServer({ maxRecords: 40 });

  test('voice: a long, control-character or half-surrogate name is a 400 naming the field', async () => {
    const s = server();
    const long = await putUser(s, JSON.stringify(LONG));
    assert.equal(long.status, 400);
    assert.equal(long.body.errorCode, 'INVALID_FIELD');
    assert.deepEqual(long.body.parameters, [{ type: 'field', value: 'firstName' }]);
    assert.match(long.body.detail, /firstName": must be at most 255 characters/);
    for (const raw of RAW_BAD) {
      const r = await putUser(s, raw);
      assert.equal(r.status, 400, raw);
      assert.deepEqual(r.body.parameters, [{ type: 'field', value: 'firstName' }], raw);
      assert.match(r.body.detail, /control characters or unpaired surrogates/, raw);
    }
    // At the limit, and with a surrogate pair (an emoji), a name is fine.
    const fine = await putUser(s, JSON.stringify(`😀${'b'.repeat(LIMITS.stringLength - 2)}`));
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
    assert.equal((await putUser(s, '"Bob"')).status, 200);
  });

  test('voice: a body over the route cap is 413 long before the operator limit (1 MiB)', async () => {
    const s = server();
    for (const size of [LIMITS.bodyBytes + 1, 100_000, 1_000_000]) {
      const r = await putUser(s, JSON.stringify('x'.repeat(size)));
      assert.equal(r.status, 413, String(size));
      assert.equal(r.body.errorCode, 'BODY_TOO_LARGE');
    }
    const user = await getJson(s, '/api/v1/tenants/1001/users/101', ALICE);
    assert.equal(user.body.firstName, 'Bob');
  });

  test('voice: a client still sending a refused body reads the 413 and keeps its connection', async () => {
    // The 413 comes on the announced length, before the body: the client (a balancer streaming
    // the upload) sends the rest after it. A connection closed under that upload is reset, and
    // the write fails: the client may lose the 413 (src/server/refused-bodies.ts).
    const s = server();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const size = 300_000;
      const answer = await new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const req = request(new URL('/api/v1/tenants/1001/users/101', s.httpUrl), {
          method: 'PUT',
          agent,
          headers: {
            authorization: basic(ALICE),
            'content-type': 'application/json',
            'content-length': String(size),
          },
        });
        req.on('error', reject);
        req.on('close', () => reject(new Error('the connection closed under the upload')));
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => {
            // The rest of the body, after the answer.
            req.write('x'.repeat(size - 16_384), (err) => {
              if (err) return reject(err);
              req.end();
              resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
            });
          });
        });
        req.write('x'.repeat(16_384));
      });
      assert.equal(answer.status, 413);
      assert.notEqual(answer.connection, 'close');
      await sleep(100);
      // The same connection serves the next request.
      const next = await new Promise<number>((resolve, reject) => {
        const req = request(new URL('/api/v1/tenants/1001/users/101', s.httpUrl), {
          agent,
          headers: { authorization: basic(ALICE) },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.end();
      });
      assert.equal(next, 200);
    } finally {
      agent.destroy();
    }
  });

  test('voice: message text keeps line breaks but has a maximum and no other control characters', async () => {
    const s = server();
    const send = (message: string) =>
      getJson(s, '/api/v1/sendmessage/tenants/1001/alertusers', ALICE, {
        method: 'POST',
        json: { message, accountIds: ['101@1001'] },
      });
    const long = await send('y'.repeat(LIMITS.textLength + 1));
    assert.equal(long.status, 400);
    assert.deepEqual(long.body.parameters, [{ type: 'field', value: 'message' }]);
    assert.equal((await send('a\u0000b')).status, 400);
    const ok = await send('Fire drill\nat noon');
    assert.ok(ok.status < 300, JSON.stringify(ok.body));
  });

  test('voice: external contacts stop at the per-tenant maximum with 409 LIMIT_REACHED', async () => {
    const s = server();
    const list = '/api/v1/tenants/1001/externalcontacts';
    const create = (n: number) =>
      getJson(s, list, BOB, {
        method: 'POST',
        json: { lastName: `Contact ${n}`, phoneNumber: `+1555000${1000 + n}` },
      });
    const bad = await getJson(s, list, BOB, {
      method: 'POST',
      json: { lastName: 'A\u0000', phoneNumber: '+15550001' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.parameters, [{ type: 'field', value: 'lastName' }]);
    let refused: Awaited<ReturnType<typeof create>> | undefined;
    for (let n = 0; n <= 40 && !refused; n++) {
      const r = await create(n);
      if (r.status === 409) refused = r;
      else assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    assert.ok(refused, 'the maximum was never reached');
    assert.equal(refused.body.errorCode, 'LIMIT_REACHED');
    const after = await getJson(s, list, BOB);
    assert.equal(after.body._embedded.externalContacts.length, 40);
  });

  test('voice: subscription sets per socket and accounts per set have maxima', async () => {
    const s = server();
    const sock = await openSocket(s, BOB);
    try {
      const sets = `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`;
      let first = '';
      for (let i = 0; i < LIMITS.subscriptionSetsPerSocket; i++) {
        const r = await getJson(s, sets, BOB, { method: 'POST' });
        assert.equal(r.status, 200);
        first ||= r.body.subscriptionSetId;
      }
      const over = await getJson(s, sets, BOB, { method: 'POST' });
      assert.equal(over.status, 409);
      assert.equal(over.body.errorCode, 'LIMIT_REACHED');
      const accounts = Array.from({ length: LIMITS.arrayItems + 1 }, () => '101@1001');
      const put = await getJson(s, `${sets}/${first}/calleventaccounts`, BOB, {
        method: 'PUT',
        json: { eventAccounts: accounts },
      });
      assert.equal(put.status, 400);
      assert.deepEqual(put.body.parameters, [{ type: 'field', value: 'eventAccounts' }]);
    } finally {
      await sock.close();
    }
  });

  test('contact center: a long or control-character product name is a 400 naming it', async () => {
    const s = server();
    const cc = await CcClient.login(s, 'admin');
    const long = await cc.put('tenants/1001', { product_name: LONG });
    assert.equal(long.status, 400);
    assert.deepEqual(long.body, { success: false, reason: 'product_name must be at most 255 characters' });
    const ctl = await cc.put('tenants/1001', { product_name: 'Gold\u0000' });
    assert.equal(ctl.status, 400);
    assert.match(ctl.body.reason, /^product_name must not contain control characters/);
  });

  test('simulator: long or control-character fields are 400 with the field in the code', async () => {
    const s = server();
    const call = (json: unknown) => getJson(s, '/sim/v1/pstn/calls', ADMIN, { method: 'POST', json });
    const long = await call({ from: '+15553334444', to: '+15555550100', callerName: LONG });
    assert.equal(long.status, 400);
    assert.equal(long.body.error.code, 'INVALID_CALLER_NAME');
    const ctl = await call({ from: '+1555\u00003334444', to: '+15555550100' });
    assert.equal(ctl.status, 400);
    assert.equal(ctl.body.error.code, 'INVALID_FROM');
  });
});
