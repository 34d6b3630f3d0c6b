import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { CcClient } from '../ccs/cc-client.js';
import { ADMIN, ALICE, BOB, getJson } from './voice-helpers.js';

/**
 * Issue 14: every validation message names the field and the rule that failed, over real HTTP on
 * the voice API (calls, subscriptions, provisioning), the contact-center API and the simulator.
 */
let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

const send = (auth: string, method: string, path: string, json: unknown) =>
  getJson(s, path, auth, { method, json });

describe('validation messages name the field and the rule', () => {
  test('voice: an empty `to` must not be empty (not "must be a string")', async () => {
    const r = await send(BOB, 'POST', '/api/v1/calls', { from: '101@1001', to: '' });
    assert.equal(r.status, 400);
    assert.equal(r.body.errorCode, 'INVALID_FIELD');
    assert.equal(r.body.detail, 'to: must not be empty.');
    assert.deepEqual(r.body.parameters, [{ type: 'field', value: 'to' }]);
  });

  test('voice: each rule in its own words', async () => {
    const cases: [string, string, string, unknown, string][] = [
      // a wrong type
      [BOB, 'POST', '/api/v1/calls', { from: '101@1001', to: 7 }, 'to: must be a string.'],
      // a value outside the allowed ones
      [
        BOB,
        'POST',
        '/api/v1/calls',
        { from: '101@1001', to: '102', deviceIdType: 'phone' },
        'deviceIdType: must be one of device, external, twinningDevice.',
      ],
      // a union of a literal and a type
      [
        BOB,
        'POST',
        '/api/v1/calls',
        { from: '101@1001', to: '102', playPrompt: 'maybe' },
        'playPrompt: must be "true", "false" or a boolean.',
      ],
      // a missing field
      [BOB, 'POST', '/api/v1/calls', { to: '102' }, 'from is required.'],
      // provisioning: a range, a blank required string, a hint
      [
        ALICE,
        'PUT',
        '/api/v1/tenants/1001/users/101',
        { ringTimeoutSeconds: 1 },
        'Field "ringTimeoutSeconds": must be an integer from 5 to 120.',
      ],
      [ADMIN, 'POST', '/api/v1/zones', { name: '' }, 'Field "name": must not be empty.'],
    ];
    for (const [auth, method, path, body, detail] of cases) {
      const r = await send(auth, method, path, body);
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(r.body.detail, detail, `${method} ${path} ${JSON.stringify(body)}`);
    }
  });

  test('contact center: an empty string must not be empty; the reason names the field', async () => {
    const admin = await CcClient.login(s, '100@1001');
    const r = await admin.post('agent_state', { request: 'updateAgentState', name: '' });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { success: false, reason: 'name must not be empty' });
  });
});
