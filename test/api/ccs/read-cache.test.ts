/**
 * Contact-center reads kept as text (src/api/ccs/cc-read-cache.ts): each check reads twice before
 * the change, so the second answer is the kept one, then reads again after the change.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { simReset, type TestServer } from '../../helpers/server.js';
import { CcClient, serverWithAcmeAdmin, sim } from './cc-client.js';

const BOB = '101@1001:1234';
const ADMIN = '100@1001:1234';
const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);

describe('kept contact-center reads follow every change and never cross callers', () => {
  let server: TestServer;
  let acmeAdmin: CcClient;
  before(async () => ({ server, acmeAdmin } = await serverWithAcmeAdmin()));
  after(() => server.stop());
  beforeEach(() => simReset(server));

  const twice = async (client: CcClient, path: string) => {
    const first = await client.get(path);
    const second = await client.get(path);
    assert.deepEqual(second, first, `${path}: the kept answer is the first one`);
    return second;
  };

  test('a tenant write or a voice API write of a user shows in every read of it', async () => {
    const item = `tenants/${ACME}`;
    const before = await twice(acmeAdmin, item);
    assert.notEqual(before.body.max_agents, '61');
    const tenants = await twice(acmeAdmin, 'tenants');
    assert.notEqual(tenants.body.items[0].product_name, 'Contact Center Plus');
    const erin = (r: { body: { items: { uuid: string; lastname: string }[] } }) =>
      r.body.items.find((e) => e.uuid === ext('104'))?.lastname;
    assert.equal(erin(await twice(acmeAdmin, 'extensions')), 'Evans');
    assert.equal(erin(await twice(acmeAdmin, `tenants/${ACME}/extensions`)), 'Evans');

    const put = await acmeAdmin.put(item, { max_agents: '61', product_name: 'Contact Center Plus' });
    assert.equal(put.status, 200);
    assert.equal((await acmeAdmin.get(item)).body.max_agents, '61');
    assert.equal((await acmeAdmin.get('tenants')).body.items[0].product_name, 'Contact Center Plus');
    // The same directory under both APIs: a user renamed through the voice API.
    const renamed = await server.fetch('/api/v1/tenants/1001/users/104', {
      method: 'PUT',
      auth: ADMIN,
      json: { lastName: 'Evans-Moore' },
    });
    assert.equal(renamed.status, 200);
    assert.equal(erin(await acmeAdmin.get('extensions')), 'Evans-Moore');
    assert.equal(erin(await acmeAdmin.get(`tenants/${ACME}/extensions`)), 'Evans-Moore');
  });

  test("another tenant's caller or another role never gets the kept answer", async () => {
    const telco = await CcClient.login(server, 'admin');
    const globex = await CcClient.login(server, '200@1002');
    const agent = await CcClient.login(server, '101@1001');
    const acme = await twice(acmeAdmin, `tenants/${ACME}`);
    assert.equal(acme.status, 200);
    assert.equal((await globex.get(`tenants/${ACME}`)).status, 403);
    assert.equal((await agent.get(`tenants/${ACME}`)).status, 403, 'an agent lacks Tenants View');
    assert.equal((await telco.get(`tenants/${ACME}`)).status, 200);

    const own = await twice(acmeAdmin, 'tenants');
    const all = await twice(telco, 'tenants');
    assert.deepEqual(
      own.body.items.map((t: { uuid: string }) => t.uuid),
      [ACME],
      'a tenant admin sees only their tenant',
    );
    assert.ok(all.body.items.length > 1, 'the telco admin sees every tenant');
    const globexOwn = await globex.get('tenants');
    assert.deepEqual(
      globexOwn.body.items.map((t: { uuid: string }) => t.uuid),
      [DEMO.globex.ccUuid],
    );
    const acds = await twice(acmeAdmin, 'acds');
    const globexAcds = await globex.get('acds');
    assert.notDeepEqual(globexAcds.body, acds.body);
    // A token that is not valid is refused before anything kept is looked at.
    const res = await server.fetch('/6/v2/api/tenants', { headers: { authorization: 'Bearer nope' } });
    assert.equal(res.status, 401);
  });

  test('the text counters: a message counted, a reset of the counters, a tenant renamed, a reset', async () => {
    const telco = await CcClient.login(server, 'admin');
    const globex = await CcClient.login(server, '200@1002');
    const ACME_TEXTS = `tenants/${ACME}/text_count`;
    const GLOBEX_TEXTS = `tenants/${DEMO.globex.ccUuid}/text_count`;
    const stats = (r: { body: { items: { sms_stats: Record<string, number> } } }) => r.body.items.sms_stats;
    const text = (tenantId: number, direction: string, kind: string) =>
      sim(server, `tenants/${tenantId}/messages`, {
        direction,
        kind,
        from: '+15550001111',
        to: '+15555550100',
      });
    const ZERO = { out_sms: 0, out_mms: 0, in_sms: 0, in_mms: 0 };
    assert.deepEqual(stats(await twice(acmeAdmin, ACME_TEXTS)), ZERO);
    assert.deepEqual(stats(await twice(telco, ACME_TEXTS)), ZERO);
    assert.deepEqual(stats(await twice(globex, GLOBEX_TEXTS)), ZERO);

    await text(1001, 'in', 'sms');
    assert.deepEqual(stats(await twice(acmeAdmin, ACME_TEXTS)), { ...ZERO, in_sms: 1 });
    assert.deepEqual(stats(await twice(telco, ACME_TEXTS)), { ...ZERO, in_sms: 1 });
    assert.deepEqual(stats(await twice(globex, GLOBEX_TEXTS)), ZERO, 'another tenant’s counters');
    await text(1001, 'out', 'mms');
    assert.deepEqual(stats(await twice(acmeAdmin, ACME_TEXTS)), { ...ZERO, in_sms: 1, out_mms: 1 });
    await text(1002, 'out', 'sms');
    assert.deepEqual(stats(await twice(globex, GLOBEX_TEXTS)), { ...ZERO, out_sms: 1 });
    assert.deepEqual(stats(await twice(telco, GLOBEX_TEXTS)), { ...ZERO, out_sms: 1 });
    assert.equal((await globex.get(ACME_TEXTS)).status, 403, 'never another tenant’s kept answer');
    assert.deepEqual(stats(await twice(acmeAdmin, ACME_TEXTS)), { ...ZERO, in_sms: 1, out_mms: 1 });
    assert.deepEqual(stats(await twice(telco, ACME_TEXTS)), { ...ZERO, in_sms: 1, out_mms: 1 });

    const reset = await acmeAdmin.post(ACME_TEXTS, { request: 'reset_counter' });
    assert.deepEqual(reset.body, { success: true });
    assert.deepEqual(stats(await twice(acmeAdmin, ACME_TEXTS)), ZERO);
    assert.deepEqual(stats(await twice(telco, ACME_TEXTS)), ZERO);
    assert.deepEqual(stats(await twice(globex, GLOBEX_TEXTS)), { ...ZERO, out_sms: 1 }, 'theirs stay');

    // The answer names the tenant: a directory change shows too (the telco admin's principal
    // stays the same when a tenant changes).
    assert.equal((await twice(telco, ACME_TEXTS)).body.items.tenant_name, 'Acme Corp');
    const renamed = await server.fetch('/api/v1/tenants/1001', {
      method: 'PUT',
      auth: 'admin:admin',
      json: { name: 'Acme Texts' },
    });
    assert.equal(renamed.status, 200, await renamed.text());
    assert.equal((await acmeAdmin.get(ACME_TEXTS)).body.items.tenant_name, 'Acme Texts');
    assert.equal((await telco.get(ACME_TEXTS)).body.items.tenant_name, 'Acme Texts');

    await simReset(server);
    assert.deepEqual(stats(await globex.get(GLOBEX_TEXTS)), ZERO, 'a reset empties every counter');
  });

  test("an agent's state: kept within the second its durations read the same in, and follows every change", async () => {
    const agent = await CcClient.login(server, '101@1001');
    const telco = await CcClient.login(server, 'admin');
    const STATE = `tenants/${ACME}/extensions/${ext('101')}/agent_state`;
    const advance = async (ms: number) =>
      assert.equal((await sim(server, 'clock/advance', { ms })).success ?? true, true);
    const durations = (r: { body: Record<string, { duration: string }> }) => [
      r.body.queue_state.duration,
      r.body.phone_state.duration,
      r.body.agent_state.duration,
    ];
    // First read after a reset: the agent's record starts now, every duration at zero.
    const first = await twice(acmeAdmin, STATE);
    assert.deepEqual(durations(first), ['00:00:00', '00:00:00', '00:00:00']);
    await advance(999);
    assert.deepEqual(durations(await twice(acmeAdmin, STATE)), ['00:00:00', '00:00:00', '00:00:00']);
    await advance(1);
    assert.deepEqual(
      durations(await twice(acmeAdmin, STATE)),
      ['00:00:01', '00:00:01', '00:00:01'],
      'the next second is read afresh, not the kept answer',
    );
    assert.deepEqual(durations(await twice(telco, STATE)), ['00:00:01', '00:00:01', '00:00:01']);

    // A state chosen by the agent: its duration starts again, the others go on.
    const chose = await agent.post('agent_state', { request: 'updateAgentState', name: 'Break' });
    assert.equal(chose.status, 200);
    const onBreak = await twice(acmeAdmin, STATE);
    assert.deepEqual(onBreak.body.agent_state.state, { type: 'away', name: 'Break' });
    assert.deepEqual(durations(onBreak), ['00:00:01', '00:00:01', '00:00:00']);
    assert.deepEqual(
      (await twice(telco, STATE)).body,
      onBreak.body,
      'the telco admin’s kept answer moved too',
    );
    await advance(1_500);
    assert.deepEqual(durations(await twice(acmeAdmin, STATE)), ['00:00:02', '00:00:02', '00:00:01']);

    // The agent's phone rings: the phone state comes from the switch's legs.
    const made = await server.fetch('/api/v1/calls', {
      method: 'POST',
      auth: '102@1001:1234',
      json: { from: '102@1001', to: '101' },
    });
    assert.equal(made.status, 201, await made.text());
    const ringing = await acmeAdmin.get(STATE);
    assert.notEqual(ringing.body.phone_state.state, onBreak.body.phone_state.state);
    assert.equal(ringing.body.phone_state.duration, '00:00:00');
    await sim(server, `devices/${phone('102')}/hangup`);
    const idle = await twice(acmeAdmin, STATE);
    assert.equal(idle.body.phone_state.state, onBreak.body.phone_state.state);

    // A directory change: the extension stops being an agent.
    const demoted = await server.fetch('/api/v1/tenants/1001/users/101', {
      method: 'PUT',
      auth: ADMIN,
      json: { isAgent: false },
    });
    assert.equal(demoted.status, 200, await demoted.text());
    assert.equal((await acmeAdmin.get(STATE)).status, 400, 'no longer an agent');
  });

  test('a call shows in the call reads while live and as its record once ended; a reset empties them', async () => {
    const empty = await twice(acmeAdmin, 'calls');
    assert.equal(empty.status, 200);
    const search = 'calls/filter?calling_number=101';
    assert.equal((await acmeAdmin.get(search)).status, 404);
    assert.equal((await acmeAdmin.get(search)).status, 404);

    const made = await server.fetch('/api/v1/calls', {
      method: 'POST',
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const live = await acmeAdmin.get('calls');
    assert.equal(live.body.items.length, empty.body.items.length + 1, 'the live call is listed');
    const [call] = live.body.items;
    assert.equal(call.outcome, 'Progress');
    assert.equal((await acmeAdmin.get(search)).body.call_details.id, call.id);
    assert.equal((await acmeAdmin.get(`calls/${call.id}`)).body.outcome, 'Progress');

    await sim(server, `devices/${phone('102')}/answer`);
    const answered = await acmeAdmin.get(`calls/${call.id}`);
    assert.equal(answered.body.outcome, 'Answered', 'a live call is read afresh, never kept');
    assert.equal(answered.body.type, 'in_ecr');
    // Its duration moves with the clock alone, with nothing else happening: never kept.
    assert.deepEqual((await acmeAdmin.get(`calls/${call.id}`)).body, answered.body);
    const advanced = await server.fetch('/sim/v1/clock/advance', {
      method: 'POST',
      auth: 'admin:admin',
      json: { ms: 5_000 },
    });
    assert.equal(advanced.status, 200);
    const later = await acmeAdmin.get(`calls/${call.id}`);
    assert.notEqual(later.body.duration, answered.body.duration, 'the duration moved');
    const laterList = await acmeAdmin.get('calls');
    assert.deepEqual(laterList.body.items[0], later.body, 'the list too');
    await sim(server, `devices/${phone('102')}/hangup`);
    const ended = await twice(acmeAdmin, `calls/${call.id}`);
    assert.equal(ended.status, 200);
    assert.equal(ended.body.type, undefined, 'the finished record, not the in-progress shape');
    assert.equal(ended.body.call_details.at(-1).type, 'disconnected');
    const list = await twice(acmeAdmin, 'calls');
    assert.equal(list.body.items[0].id, call.id);
    assert.deepEqual({ success: true, ...list.body.items[0] }, ended.body, 'the list shows the record');
    assert.equal((await twice(acmeAdmin, search)).body.call_details.id, call.id);

    await simReset(server);
    const afterReset = await acmeAdmin.get('calls');
    assert.ok(
      !afterReset.body.items.some((c: { id: string }) => c.id === call.id),
      'a reset forgets the record',
    );
    assert.equal((await acmeAdmin.get(`calls/${call.id}`)).status, 404);
    assert.equal((await acmeAdmin.get(search)).status, 404);
  });
});
