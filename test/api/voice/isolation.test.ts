import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { BOB, GRACE, getJson, HANK, OPERATOR, openSocket } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

describe('tenant isolation', () => {
  test('a 1002 user sees and touches nothing of 1001, over every resource', async () => {
    const made = await getJson(s, '/api/v1/calls', BOB, {
      method: 'POST',
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const callId = made.body.callId as string;
    const bobSocket = await openSocket(s, BOB);
    try {
      const reads = [
        '/api/v1/tenants/1001',
        '/api/v1/tenants/1001/extensions',
        '/api/v1/tenants/1001/extensions/101',
        '/api/v1/tenants/1001/users/101',
        '/api/v1/tenants/1001/users/101/phones',
        '/api/v1/tenants/1001/locations/150',
        '/api/v1/presencestatus/tenants/1001/extensions',
        '/api/v1/presencestatus/tenants/1001/extensions/101',
        '/api/v1/presencestatus/tenants/1001/parklocations',
        '/api/v1/presencestatus/parklocationstatus/PL1@1001',
        `/api/v1/calls/${callId}`,
        `/api/v1/subscriptions/ws/${bobSocket.id}/subscriptionsets`,
        '/api/v1/devicestates/ph1001-101',
      ];
      for (const who of [GRACE, HANK]) {
        for (const path of reads) {
          const r = await getJson(s, path, who);
          assert.ok([403, 404].includes(r.status), `${who} GET ${path} -> ${r.status}`);
          assert.equal(JSON.stringify(r.body).includes('Bob Brown'), false);
        }
        const list = await getJson(s, '/api/v1/calls', who);
        assert.deepEqual(list.body._embedded.calls, []);
      }
      const writes: [string, string, unknown][] = [
        ['POST', `/api/v1/calls/${callId}`, { callRequest: 'hangupCall' }],
        ['POST', '/api/v1/calls', { from: '101@1001', to: '102' }],
        ['POST', '/api/v1/calls', { from: '200@1002', to: '101' }],
        ['POST', '/api/v1/sendmessage/tenants/1001/alertusers', { accountIds: ['101@1001'], message: 'hi' }],
        ['POST', '/api/v1/sendmessage/tenants/1002/alertusers', { accountIds: ['101@1001'], message: 'hi' }],
        ['POST', `/api/v1/subscriptions/ws/${bobSocket.id}/subscriptionsets`, undefined],
      ];
      for (const [method, path, json] of writes) {
        const r = await getJson(s, path, GRACE, { method, ...(json === undefined ? {} : { json }) });
        if (path === '/api/v1/calls' && (json as { from: string }).from === '200@1002') {
          // Globex may call; 101 is simply Globex's own (non-existent) extension 101, never Acme's.
          assert.notEqual(r.status, 500);
          continue;
        }
        assert.ok([400, 403, 404].includes(r.status), `${method} ${path} -> ${r.status}`);
      }
      // The call of 1001 is untouched.
      const still = await getJson(s, `/api/v1/calls/${callId}`, BOB);
      assert.equal(still.status, 200);
      assert.notEqual(still.body.callState, 'ended');

      // A 1002 subscription set cannot watch 1001 accounts.
      const g = await openSocket(s, GRACE);
      const set = await getJson(s, `/api/v1/subscriptions/ws/${g.id}/subscriptionsets`, GRACE, {
        method: 'POST',
      });
      for (const [rel, body] of [
        ['v1:callEventSubscriptions', { eventAccounts: ['101@1001'] }],
        ['v1:presenceEventSubscriptions', { eventAccounts: ['ALL_USERS@1001'] }],
        ['v1:parkLocationEventSubscriptions', { scope: 'set', eventAccounts: ['PL1@1001'] }],
      ] as const) {
        const r = await getJson(s, set.body._links[rel].href, GRACE, { method: 'PUT', json: body });
        assert.equal(r.status, 403, rel);
      }
      await g.close();
    } finally {
      await bobSocket.close();
    }
  });

  test('a scoped telco user stays inside its tenant', async () => {
    for (const path of [
      '/api/v1/tenants/1002',
      '/api/v1/tenants/1002/extensions',
      '/api/v1/presencestatus/tenants/1002/extensions',
    ]) {
      assert.equal((await getJson(s, path, OPERATOR)).status, 403, path);
    }
    const devices = await getJson(s, '/api/v1/devicestates', OPERATOR);
    const ids = devices.body._embedded.deviceStates.map((d: { deviceId: string }) => d.deviceId);
    assert.ok(ids.length > 0 && ids.every((id: string) => id.startsWith('ph1001-')));
    assert.equal((await getJson(s, '/api/v1/devicestates/ph1002-200', OPERATOR)).status, 404);
  });
});
