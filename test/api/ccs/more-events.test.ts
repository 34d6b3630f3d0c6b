/**
 * The contact-center events the other suites produce without asserting: queue_state_changed,
 * call_redirected, call_transferred and call_dialed, from real scenarios over /6/v2/sock. The
 * contract checker validates every frame against the contact-center-events document as well.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import type { TestServer } from '../../helpers/server.js';
import { CcClient, openEventSocket, serverWithAcmeAdmin, sim } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);
const OQ = '5b0a0006-0000-4000-8000-000000100101';
const SALES_DID = '+15555550150';

describe('contact-center events from real scenarios', () => {
  let server: TestServer;
  let acmeAdmin: CcClient;
  before(async () => ({ server, acmeAdmin } = await serverWithAcmeAdmin()));
  after(() => server.stop());

  const setState = async (name: string, ...exts: string[]) => {
    for (const n of exts) {
      const r = await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  };

  test('queue_state_changed: Offered, Connected, then None, naming the queue and the call', async () => {
    await setState('Meeting', '102', '103');
    const sock = await openEventSocket(server, acmeAdmin.token);
    try {
      await sim(server, 'pstn/calls', { from: '+15550001111', to: SALES_DID });
      const queued = await sock.next((f) => f.event === 'call_queued');
      const id = queued.data.call.id as string;
      const queueState = (state: string) =>
        sock.next(
          (f) =>
            f.event === 'queue_state_changed' &&
            f.data.extension === '101' &&
            f.data.queue_state.state === state,
        );

      const offered = await queueState('Offered');
      assert.equal(offered.category, 'agent');
      assert.equal(offered.tenant_id, ACME);
      assert.equal(offered.data.extension_uuid, ext('101'));
      assert.equal(offered.data.name, 'Bob Brown');
      assert.equal(offered.data.previous, 'None');
      assert.deepEqual(offered.data.queue_state, {
        state: 'Offered',
        queue: 'Sales',
        duration: '00:00:00',
        call_id: id,
      });

      await sim(server, `devices/${phone('101')}/answer`);
      const connected = await queueState('Connected');
      assert.equal(connected.data.previous, 'Offered');
      assert.equal(connected.data.queue_state.call_id, id);
      assert.equal(connected.data.queue_state.queue, 'Sales');

      assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'kill' })).status, 200);
      const idle = await queueState('None');
      assert.equal(idle.data.previous, 'Connected');
      assert.deepEqual(idle.data.queue_state, { state: 'None', queue: '', duration: '00:00:00' });
    } finally {
      await sock.close();
      await setState('Ready', '102', '103');
    }
  });

  test('call_redirected and call_transferred name the target of wait_redirect and wait_transfer', async () => {
    await setState('Lunch', '101', '102', '103', '104');
    const sock = await openEventSocket(server, acmeAdmin.token);
    const ids: string[] = [];
    try {
      for (const from of ['+15550002221', '+15550002222']) {
        await sim(server, 'pstn/calls', { from, to: SALES_DID });
        const q = await sock.next((f) => f.event === 'call_queued' && f.data.call.calling.number === from);
        ids.push(q.data.call.id);
      }
      const [a, b] = ids as [string, string];

      const redirect = await acmeAdmin.post(`calls/${a}`, { request: 'wait_redirect', target: ext('501') });
      assert.equal(redirect.status, 200, JSON.stringify(redirect.body));
      const redirected = await sock.next((f) => f.event === 'call_redirected');
      assert.equal(redirected.category, 'call');
      assert.equal(redirected.tenant_id, ACME);
      assert.equal(redirected.data.call.id, a);
      assert.equal(redirected.data.reason, '501');
      assert.equal(redirected.data.call.call_source.extension, '500', 'the queue the call left');
      assert.ok(redirected.data.call.call_details.some((d: { type: string }) => d.type === 'redirected'));
      const requeued = await sock.next(
        (f) =>
          f.event === 'call_queued' && f.data.call.id === a && f.data.call.call_source.extension === '501',
      );
      assert.equal(requeued.data.call.call_source.name, 'Support');

      const transfer = await acmeAdmin.post(`calls/${b}`, { request: 'wait_transfer', target: '105' });
      assert.equal(transfer.status, 200, JSON.stringify(transfer.body));
      const transferred = await sock.next((f) => f.event === 'call_transferred');
      assert.equal(transferred.category, 'call');
      assert.equal(transferred.data.call.id, b);
      assert.equal(transferred.data.reason, '105');
      assert.equal(transferred.data.call.calling.number, '+15550002222');
      assert.ok(transferred.data.call.call_details.some((d: { type: string }) => d.type === 'transferred'));
    } finally {
      for (const id of ids) await acmeAdmin.post(`calls/${id}`, { request: 'kill' });
      await sock.close();
      await setState('Ready', '101', '102', '103', '104');
    }
  });

  test('call_dialed: an outbound-queue dial names the dialing agent and the queue', async () => {
    const sock = await openEventSocket(server, acmeAdmin.token);
    let id: string | undefined;
    try {
      const r = await acmeAdmin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
        request: 'dial',
        target: '+15550009999',
        outbound_queue_uuid: OQ,
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      id = r.body.call_id as string;
      const dialed = await sock.next((f) => f.event === 'call_dialed');
      assert.equal(dialed.category, 'call');
      assert.equal(dialed.tenant_id, ACME);
      assert.equal(dialed.data.agent_extension, '101');
      assert.equal(dialed.data.call.id, id);
      assert.equal(dialed.data.call.direction, 'out');
      assert.equal(dialed.data.call.outcome, 'Progress');
      assert.equal(dialed.data.call.caller_uuid, ext('101'));
      assert.deepEqual(dialed.data.call.calling, { number: SALES_DID, name: 'Outbound Sales' });
      assert.equal(dialed.data.call.called.number, '+15550009999');
      assert.deepEqual(dialed.data.call.call_source, {
        type: 'outbound_queue',
        uuid: OQ,
        name: 'Outbound Sales',
        extension: '510',
      });
    } finally {
      if (id) await acmeAdmin.post(`calls/${id}`, { request: 'kill' });
      await sock.close();
    }
  });
});
