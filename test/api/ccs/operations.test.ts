import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { CcClient, eventually, openEventSocket, sim } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const OQ = '5b0a0006-0000-4000-8000-000000100101';

describe('contact-center operations', () => {
  let server: TestServer;
  let admin: CcClient;
  let acmeAdmin: CcClient;
  let agent: CcClient;
  before(async () => {
    server = await startTestServer();
    admin = await CcClient.login(server, 'admin');
    acmeAdmin = await CcClient.login(server, '100@1001');
    agent = await CcClient.login(server, '101@1001');
  });
  after(() => server.stop());

  const state = async (n: string) =>
    (await admin.get(`tenants/${ACME}/extensions/${ext(n)}/agent_state`)).body;
  const acdPresence = (n: string) => server.runtime.switch.presence(1001, n).acd;

  test('agent state through all three paths, with ACD sign-in on the voice side', async () => {
    // 16: telco path.
    let r = await admin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'updateAgentState',
      name: 'Break',
    });
    assert.equal(r.status, 200);
    assert.deepEqual((await state('101')).agent_state.state, { type: 'away', name: 'Break' });
    assert.equal(acdPresence('101'), 'signedInAcd');
    // 17: own state.
    r = await agent.post('agent_state', { request: 'updateAgentState', name: 'end of shift' });
    assert.equal(r.status, 200);
    assert.deepEqual((await state('101')).agent_state.state, { type: 'sign_out', name: 'End of Shift' });
    assert.equal(acdPresence('101'), 'signedOutAcd');
    // 18: tenant admin on an agent.
    r = await acmeAdmin.post(`extensions/${ext('101')}`, { request: 'updateAgentState', name: 'Ready' });
    assert.equal(r.status, 200);
    const s = await state('101');
    assert.deepEqual(s.agent_state.state, { type: 'ready', name: 'Ready' });
    assert.equal(s.agent_state.duration, '00:00:00');
    assert.equal(acdPresence('101'), 'signedInAcd');
    await sim(server, 'clock/advance', { ms: 3_723_000 });
    assert.equal((await state('101')).agent_state.duration, '01:02:03');
    // Refusals.
    const bad = await agent.post('agent_state', { request: 'updateAgentState', name: 'Nap' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.success, false);
    assert.equal(
      (await agent.post(`extensions/${ext('102')}`, { request: 'updateAgentState', name: 'Break' })).status,
      403,
    );
    assert.equal(
      (
        await agent.post(`tenants/${ACME}/extensions/${ext('102')}`, {
          request: 'updateAgentState',
          name: 'Break',
        })
      ).status,
      403,
      'an agent changes only their own state',
    );
    assert.equal((await acmeAdmin.get(`tenants/${ACME}/extensions/${ext('105')}/agent_state`)).status, 400);
  });

  test('wait_transfer, wait_redirect and wait_kill on waiting calls; 400 when not waiting', async () => {
    for (const n of ['101', '102', '103']) {
      await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Lunch' });
    }
    const sock = await openEventSocket(server, acmeAdmin.token);
    for (const from of ['+15550000001', '+15550000002', '+15550000003']) {
      await sim(server, 'pstn/calls', { from, to: '+15555550150' });
    }
    const ids = await eventually(() => {
      const q = sock.frames.filter((f) => f.event === 'call_queued');
      return q.length === 3 ? q.map((f) => f.data.call.id as string) : undefined;
    }, 'three queued');
    const [a, b, c] = ids;
    assert.equal((await acmeAdmin.get(`calls/${a}`)).body.call_source.extension, '500');

    // Suppression on a waiting call: 400 with the startSuppression quirk.
    const sup = await acmeAdmin.post(`calls/${a}`, { request: 'startSuppression' });
    assert.equal(sup.status, 400);
    assert.equal(sup.body.success, true);

    const support = ext('501');
    assert.equal(
      (await acmeAdmin.post(`calls/${a}`, { request: 'wait_redirect', target: 'nope' })).status,
      400,
    );
    assert.equal(
      (await acmeAdmin.post(`calls/${a}`, { request: 'wait_redirect', target: support })).status,
      200,
    );
    const requeued = await sock.next(
      (f) => f.event === 'call_queued' && f.data.call.id === a && f.data.call.call_source.extension === '501',
    );
    assert.equal(requeued.data.call.call_source.name, 'Support');

    assert.equal(
      (await acmeAdmin.post(`calls/${b}`, { request: 'wait_transfer', target: '105' })).status,
      200,
    );
    await eventually(
      () => server.runtime.switch.legsOf(1001, '105').some((l) => l.state === 'ringing'),
      '105 rings',
    );
    const notWaiting = await acmeAdmin.post(`calls/${b}`, { request: 'wait_kill' });
    assert.equal(notWaiting.status, 400);
    assert.deepEqual(notWaiting.body.success, false);
    assert.equal(
      (await acmeAdmin.post(`calls/${b}`, { request: 'wait_transfer', target: '102' })).status,
      400,
    );

    assert.equal((await acmeAdmin.post(`calls/${c}`, { request: 'wait_kill' })).status, 200);
    const ended = await sock.next((f) => f.event === 'call_ended' && f.data.call.id === c);
    assert.equal(ended.data.call.outcome, 'Abandoned');
    // Issue 14: acting on a call that has ended is 400 (the normal body), not 404.
    for (const body of [
      { request: 'wait_kill' },
      { request: 'wait_transfer', target: '102' },
      { request: 'wait_redirect', target: support },
      { request: 'kill' },
    ]) {
      const again = await acmeAdmin.post(`calls/${c}`, body);
      assert.equal(again.status, 400, body.request);
      assert.deepEqual(again.body, { success: false, reason: 'Call has ended' }, body.request);
    }
    assert.equal((await acmeAdmin.post('calls/123456789', { request: 'wait_kill' })).status, 404);
    assert.equal((await acmeAdmin.post(`calls/${c}`, { request: 'nonsense' })).status, 400);
    sock.close();
    for (const id of [a, b]) await acmeAdmin.post(`calls/${id}`, { request: 'kill' });
    for (const n of ['101', '102', '103']) {
      await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Ready' });
    }
  });

  test('three missed offers in a row move the agent to the first away state', async () => {
    for (const n of ['102', '103']) {
      await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Meeting' });
    }
    const sock = await openEventSocket(server, acmeAdmin.token);
    await sim(server, 'pstn/calls', { from: '+15550007777', to: '+15555550150' });
    const id = (await sock.next((f) => f.event === 'call_queued')).data.call.id;
    for (let i = 1; i <= 3; i++) {
      await sock.next(
        (f) =>
          f.event === 'call_offered' && sock.frames.filter((g) => g.event === 'call_offered').length >= i,
      );
      await sim(server, 'clock/advance', { ms: 15_000 });
    }
    const away = await sock.next((f) => f.event === 'agent_state_changed' && f.data.extension === '101');
    assert.equal(away.data.reason, 'missed calls');
    assert.deepEqual(away.data.agent_state.state, { type: 'away', name: 'Lunch' });
    assert.equal(away.data.consecutive_missed, 3);
    const s = await state('101');
    assert.deepEqual(s.agent_state.state, { type: 'away', name: 'Lunch' });
    assert.equal(s.queue_state.state, 'None');
    const waiting = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(waiting.outcome, 'Progress');
    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'wait_kill' })).status, 200);
    await sock.close();
    for (const n of ['101', '102', '103']) {
      await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Ready' });
    }
  });

  test('SMS/MMS counters count and reset', async () => {
    const text = (tenantId: number, direction: string, kind: string) =>
      sim(server, `tenants/${tenantId}/messages`, {
        direction,
        kind,
        from: '+15550001111',
        to: '+15555550100',
      });
    await text(1001, 'in', 'sms');
    await text(1001, 'in', 'sms');
    await text(1001, 'out', 'mms');
    await text(1002, 'out', 'sms');
    const read = await admin.get(`tenants/${ACME}/text_count`);
    assert.deepEqual(read.body, {
      success: true,
      items: {
        tenant_sid: 'CC1001',
        tenant_name: 'Acme Corp',
        tenant_id: ACME,
        sms_stats: { out_sms: 0, out_mms: 1, in_sms: 2, in_mms: 0 },
      },
    });
    assert.equal((await admin.post(`tenants/${ACME}/text_count`, { request: 'nope' })).status, 400);
    assert.deepEqual((await admin.post(`tenants/${ACME}/text_count`, { request: 'reset_counter' })).body, {
      success: true,
    });
    assert.deepEqual((await admin.get(`tenants/${ACME}/text_count`)).body.items.sms_stats, {
      out_sms: 0,
      out_mms: 0,
      in_sms: 0,
      in_mms: 0,
    });
    const globex = await admin.get(`tenants/${DEMO.globex.ccUuid}/text_count`);
    assert.equal(globex.body.items.sms_stats.out_sms, 1, 'other tenants keep theirs');
  });

  test('tenant limits and extension settings are validated, stored and read back', async () => {
    const put = await acmeAdmin.put(`tenants/${ACME}`, {
      product_name: 'Contact Center Plus',
      max_agents: '60',
      chat_licenses: '12',
      agent_billing: 'Concurrent',
    });
    assert.deepEqual(put.body, { success: true, uuid: ACME });
    const t = (await acmeAdmin.get(`tenants/${ACME}`)).body;
    assert.equal(t.max_agents, '60');
    assert.equal(t.chat_licenses, '12');
    assert.equal(t.product_name, 'Contact Center Plus');
    assert.match(t.modified_on, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} (AM|PM)$/);
    assert.equal(t.max_agents_count, 4);
    for (const body of [{ max_agents: 'many' }, { agent_billing: 'Free' }, { max_queues: '-1' }]) {
      const r = await acmeAdmin.put(`tenants/${ACME}`, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.success, false);
    }
    assert.equal(
      (await acmeAdmin.get(`tenants/${ACME}`)).body.max_agents,
      '60',
      'refused bodies change nothing',
    );

    const path = `tenants/${ACME}/extensions/${ext('104')}`;
    assert.equal(
      (await acmeAdmin.put(path, { recording_type: 'On Demand', max_chats: '6', monitor: 'true' })).status,
      200,
    );
    const after = (await acmeAdmin.get(`tenants/${ACME}`)).body;
    assert.equal(after.rec_extn_count, 3);
    assert.equal(after.monitor_ext_count, 1);
    for (const body of [
      { max_chats: '7' },
      { recording_type: 'Sometimes' },
      { is_agent: 'yes' },
      { max_chats: 'two' },
    ]) {
      assert.equal((await acmeAdmin.put(path, body)).status, 400, JSON.stringify(body));
    }
    // Products.
    const add = await admin.post(`tenants/${ACME}`, {
      request: 'add_product',
      product: DEMO.products.recording,
    });
    assert.deepEqual(add.body, { success: true, uuid: DEMO.products.recording });
    const withProduct = (await admin.get(`tenants/${ACME}`)).body;
    assert.ok(withProduct.product_id.some((p: { uuid: string }) => p.uuid === DEMO.products.recording));
    assert.equal(
      (await admin.post(`tenants/${ACME}`, { request: 'add_product', product: 'nope' })).status,
      400,
    );
    assert.equal(
      (await admin.post(`tenants/${ACME}`, { request: 'delete_product', product: DEMO.products.recording }))
        .status,
      200,
    );
    assert.equal(
      (await admin.post(`tenants/${ACME}`, { request: 'delete_product', product: DEMO.products.recording }))
        .status,
      400,
    );
  });

  test('dial through an outbound queue', async () => {
    const acds = (await acmeAdmin.get('acds')).body;
    assert.equal(acds.total, 3);
    const oq = acds.items[1][0];
    assert.equal(oq.uuid, OQ);
    const r = await agent.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'dial',
      target: '+15550009999',
      outbound_queue_uuid: OQ,
    });
    assert.equal(r.status, 403, 'agents lack Call Control');
    const ok = await acmeAdmin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'dial',
      target: '+15550009999',
      outbound_queue_uuid: OQ,
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const id = ok.body.call_id;
    const live = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(live.type, 'in_ecr');
    assert.equal(live.direction, 'out');
    assert.equal(live.outcome, 'Progress');
    assert.equal(live.caller_uuid, ext('101'));
    assert.equal(live.call_source.name, 'Outbound Sales');
    assert.deepEqual(live.calling, { number: '+15555550150', name: 'Outbound Sales' });
    // The outside number answers after its default delay; 101 records Mandatory.
    await sim(server, 'clock/advance', { ms: 5_000 });
    const answered = await eventually(async () => {
      const c = (await acmeAdmin.get(`calls/${id}`)).body;
      return c.outcome === 'Answered' ? c : undefined;
    }, 'far end answered');
    assert.equal(answered.is_recording, true);
    assert.equal(
      (await acmeAdmin.get(`tenants/${ACME}/extensions/${ext('101')}/agent_state`)).body.phone_state.state,
      'Talking',
    );
    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'kill' })).status, 200);
    const bad = await acmeAdmin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'dial',
      target: 'abc',
      outbound_queue_uuid: OQ,
    });
    assert.equal(bad.status, 400);
  });
});
