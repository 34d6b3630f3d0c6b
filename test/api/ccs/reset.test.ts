import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer } from '../../helpers/server.js';
import { CcClient } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);

test('a simulator reset signs agents back in Ready, empties counters and keeps demo tokens', async () => {
  const server = await startTestServer();
  try {
    const admin = await CcClient.login(server, 'admin');
    const agent = await CcClient.login(server, '101@1001');
    assert.equal(
      (await agent.post('agent_state', { request: 'updateAgentState', name: 'Signed Out' })).status,
      200,
    );
    assert.equal(server.runtime.switch.presence(1001, '101').acd, 'signedOutAcd');
    await server.runtime.contactCenter.countTextMessage(1001, 'in', 'mms');

    await server.runtime.resetToDemo();

    const s = await admin.get(`tenants/${ACME}/extensions/${ext('101')}/agent_state`);
    assert.equal(s.status, 200, 'the telco token survives the reset');
    assert.deepEqual(s.body.agent_state.state, { type: 'ready', name: 'Ready' });
    assert.equal(s.body.consecutive_missed, 0);
    assert.equal(server.runtime.switch.presence(1001, '101').acd, 'signedInAcd');
    assert.equal(
      (await agent.post('agent_state', { request: 'updateAgentState', name: 'Ready' })).status,
      200,
    );
    assert.equal((await admin.get(`tenants/${ACME}/text_count`)).body.items.sms_stats.in_mms, 0);
  } finally {
    await server.stop();
  }
});
