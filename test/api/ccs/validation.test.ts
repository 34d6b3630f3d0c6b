import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import type { TestServer } from '../../helpers/server.js';
import { BASE, CcClient, openEventSocket, serverWithAcmeAdmin } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);

describe('contact-center request validation from the documented schemas', () => {
  let server: TestServer;
  let acmeAdmin: CcClient;
  before(async () => ({ server, acmeAdmin } = await serverWithAcmeAdmin()));
  after(() => server.stop());

  test('a bad body answers 400 with a reason naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['PUT', `tenants/${ACME}`, { max_agents: 'many' }, 'max_agents must be a number'],
      ['PUT', `tenants/${ACME}`, { agent_billing: 'Free' }, 'agent_billing must be Named or Concurrent'],
      ['PUT', `tenants/${ACME}`, { product_name: 7 }, 'product_name must be text'],
      [
        'PUT',
        `tenants/${ACME}/extensions/${ext('104')}`,
        { max_chats: '7' },
        'max_chats must be a number from 0 to 6',
      ],
      [
        'PUT',
        `tenants/${ACME}/extensions/${ext('104')}`,
        { monitor: 'yes' },
        'monitor must be true or false',
      ],
      [
        'PUT',
        `tenants/${ACME}/extensions/${ext('104')}`,
        { recording_type: 'Sometimes' },
        'recording_type must be None, Mandatory or On Demand',
      ],
      ['POST', 'agent_state', { name: 'Ready' }, 'request must be updateAgentState'],
      ['POST', 'agent_state', { request: 'updateAgentState' }, 'name is required'],
      ['POST', `tenants/${ACME}`, { request: 'add_product' }, 'product is required'],
      ['POST', `tenants/${ACME}/text_count`, { request: 'nope' }, 'request must be reset_counter'],
      [
        'POST',
        `tenants/${ACME}/extensions/${ext('101')}`,
        { request: 'dial', target: '+15550001234' },
        'outbound_queue_uuid is required',
      ],
      ['POST', 'calls/123456', { request: 'wait_transfer' }, 'target is required'],
    ];
    for (const [method, path, body, reason] of cases) {
      const r = await acmeAdmin.call(method, path, body);
      assert.equal(r.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
      assert.deepEqual(r.body, { success: false, reason });
    }
  });

  test('call control: the 400 body has success: true for startSuppression only', async () => {
    const requests = [
      'startSuppression',
      'stopSuppression',
      'kill',
      'wait_transfer',
      'wait_redirect',
      'wait_kill',
    ];
    for (const request of requests) {
      const r = await acmeAdmin.post('calls/not-a-call', { request, target: ext('501') });
      assert.equal(r.status, 400, request);
      assert.deepEqual(
        r.body,
        { success: request === 'startSuppression', reason: 'Invalid call id' },
        request,
      );
    }
  });

  test('wait_redirect target and dial outbound_queue_uuid must be uuids', async () => {
    const redirect = await acmeAdmin.post('calls/123456', { request: 'wait_redirect', target: 'Support' });
    assert.deepEqual(redirect, { status: 400, body: { success: false, reason: 'target must be a uuid' } });
    const dial = await acmeAdmin.post(`tenants/${ACME}/extensions/${ext('101')}`, {
      request: 'dial',
      target: '+15550001234',
      outbound_queue_uuid: 'Outbound Sales',
    });
    assert.deepEqual(dial, {
      status: 400,
      body: { success: false, reason: 'outbound_queue_uuid must be a uuid' },
    });
  });

  test('JSON booleans and integers are accepted where the text forms are', async () => {
    const path = `tenants/${ACME}/extensions/${ext('104')}`;
    assert.equal((await acmeAdmin.put(path, { monitor: true, max_chats: 2 })).status, 200);
    assert.equal((await acmeAdmin.put(path, { monitor: 'false', max_chats: '0' })).status, 200);
    assert.equal((await acmeAdmin.put(`tenants/${ACME}`, { max_queues: 21 })).status, 200);
    assert.equal((await acmeAdmin.get(`tenants/${ACME}`)).body.max_queues, '21');
  });

  test('call search: a malformed date-time is a 400 with the success: true quirk', async () => {
    const r = await acmeAdmin.get('calls/filter?calling_number=%2B15550000000&from_datetime=yesterday');
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { success: true, reason: 'from_datetime must be like 2026-01-05T09:00:00' });
    const empty = await acmeAdmin.get('calls/filter?calling_number=%2B15550000000&from_datetime=');
    assert.equal(empty.status, 404, 'an empty parameter counts as absent');
  });

  test('the token endpoint validates both grants, in JSON and form bodies', async () => {
    const post = (body: string, type: string) =>
      server.fetch(`${BASE}/oauth/token`, { method: 'POST', headers: { 'content-type': type }, body });
    const form = await post('grant_type=password&password=1234', 'application/x-www-form-urlencoded');
    assert.equal(form.status, 400);
    assert.deepEqual(await form.json(), { success: false, reason: 'username is required' });
    const json = await post(JSON.stringify({ grant_type: 'client_credentials' }), 'application/json');
    assert.equal(json.status, 400);
    assert.deepEqual(await json.json(), {
      success: false,
      reason: 'grant_type must be password or refresh_token',
    });
    const refresh = await post('grant_type=refresh_token', 'application/x-www-form-urlencoded');
    assert.deepEqual(await refresh.json(), { success: false, reason: 'refresh_token is required' });
  });

  test('a plain GET of the event socket answers 426', async () => {
    const r = await server.fetch('/6/v2/sock');
    assert.equal(r.status, 426);
    assert.equal(r.headers.get('upgrade'), 'websocket');
    assert.deepEqual(await r.json(), { success: false, reason: 'Upgrade Required' });
  });

  test('subscribe frames are checked against their schema', async () => {
    const sock = await openEventSocket(server, acmeAdmin.token);
    sock.ws.send(JSON.stringify({ request: 'subscribe', events: 'agent' }));
    const refused = await sock.next((f) => f.response === 'subscribe');
    assert.equal(refused.success, false);
    assert.match(refused.reason, /^events/);
    sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['inbound_queue', 'call_ended'] }));
    const ok = await sock.next((f) => f.response === 'subscribe' && f.success === true);
    assert.deepEqual(ok.events, ['queue_statistics', 'call_ended']);
    sock.ws.send(JSON.stringify({ request: 'hello' }));
    assert.deepEqual(await sock.next((f) => f.response === 'hello'), {
      response: 'hello',
      success: false,
      reason: 'Unknown request',
    });
    await sock.close();
  });
});
