/**
 * Both APIs show one switch: a live call between agents, made through either API, is in the
 * contact-center call list and `GET calls/{id}` while it is in progress (the in-progress shape),
 * and becomes the finished record the moment it ends.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { simReset, type TestServer } from '../../helpers/server.js';
import { CcClient, serverWithAcmeAdmin, sim } from './cc-client.js';

const BOB = '101@1001:1234';
const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);

describe('live calls between agents in the contact-center call list', () => {
  let server: TestServer;
  let acmeAdmin: CcClient;
  before(async () => ({ server, acmeAdmin } = await serverWithAcmeAdmin()));
  after(() => server.stop());
  beforeEach(() => simReset(server));

  const listItem = async (id: string) => {
    const list = await acmeAdmin.get('calls');
    assert.equal(list.status, 200);
    return list.body.items.filter((c: { id: string }) => c.id === id);
  };

  test('made through the voice API: in progress, answered, then the finished record', async () => {
    const made = await server.fetch('/api/v1/calls', {
      method: 'POST',
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const state = (await (await server.fetch('/sim/v1/state', { auth: 'admin:admin' })).json()) as {
      calls: { smdrCallId: string; tenantId: number }[];
    };
    const id = state.calls.find((c) => c.tenantId === 1001)!.smdrCallId;

    const [ringing] = await listItem(id);
    assert.ok(ringing, 'the ringing call is in the list');
    assert.equal(ringing.type, 'in_ecr');
    assert.equal(ringing.success, true);
    assert.equal(ringing.outcome, 'Progress');
    assert.equal(ringing.direction, 'internal');
    assert.deepEqual([ringing.calling.number, ringing.called.number], ['101', '102']);
    assert.deepEqual([ringing.caller_uuid, ringing.callee_uuid], [ext('101'), ext('102')]);
    assert.deepEqual(
      [ringing.is_recording, ringing.is_suppressed, ringing.being_marked],
      [false, false, false],
    );
    assert.deepEqual([ringing.recordings, ringing.vrq_ques_ans, ringing.wait_time], [[], [], '']);
    const one = await acmeAdmin.get(`calls/${id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body, ringing, 'the single-call answer is the list item');

    await sim(server, `devices/${phone('102')}/answer`);
    const talking = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(talking.type, 'in_ecr');
    assert.equal(talking.outcome, 'Answered');
    assert.ok(talking.call_details.some((d: { type: string }) => d.type === 'answered'));
    // The agents' phones say the same.
    const carol = await acmeAdmin.get(`tenants/${ACME}/extensions/${ext('102')}/agent_state`);
    assert.equal(carol.body.phone_state.state, 'Talking');

    await sim(server, `devices/${phone('102')}/hangup`);
    // Readable at once as the finished call, before and after its record reaches the store.
    const ended = await acmeAdmin.get(`calls/${id}`);
    assert.equal(ended.status, 200);
    assert.equal(ended.body.type, undefined, 'no longer the in-progress shape');
    assert.equal(ended.body.outcome, 'Answered');
    assert.equal(ended.body.call_details.at(-1).type, 'disconnected');
    const [inList] = await listItem(id);
    assert.deepEqual({ success: true, ...inList }, ended.body);
    // Whichever node runs the tenant (a cluster's: every node is asked) has written its records.
    for (const node of server.nodes) await node.runtime.contactCenter.recordsWritten();
    const stored = await acmeAdmin.get(`calls/${id}`);
    assert.deepEqual(stored.body, ended.body, 'the same record from the store');
  });

  test('made through the contact-center API (dial to an agent): in progress, then finished after a kill', async () => {
    const oq = (await acmeAdmin.get('acds')).body.items[1][0];
    const dialed = await acmeAdmin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'dial',
      target: '103',
      outbound_queue_uuid: oq.uuid,
    });
    assert.equal(dialed.status, 200);
    const id: string = dialed.body.call_id;
    const [live] = await listItem(id);
    assert.equal(live.type, 'in_ecr');
    assert.equal(live.direction, 'out');
    assert.equal(live.caller_uuid, ext('101'));
    assert.deepEqual((await acmeAdmin.get(`calls/${id}`)).body, live);

    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'kill' })).status, 200);
    const ended = await acmeAdmin.get(`calls/${id}`);
    assert.equal(ended.status, 200);
    assert.equal(ended.body.type, undefined);
    assert.equal(ended.body.call_details.at(-1).type, 'disconnected');
    // The voice API agrees: no live leg of the call is left.
    const legs = await server.fetch('/api/v1/calls', { auth: BOB });
    const body = (await legs.json()) as { _embedded?: { calls?: unknown[] } };
    assert.equal(body._embedded?.calls?.length ?? 0, 0);
  });
});
