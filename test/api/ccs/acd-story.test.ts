import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { CcClient, eventually, openEventSocket, sim } from './cc-client.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);
const CALLER = '+15551230001';

describe('the ACD story on the virtual clock', () => {
  let server: TestServer;
  let admin: CcClient;
  let acmeAdmin: CcClient;
  before(async () => {
    server = await startTestServer();
    admin = await CcClient.login(server, 'admin');
    acmeAdmin = await CcClient.login(server, '100@1001');
  });
  after(() => server.stop());

  const agentState = async (n: string) =>
    (await acmeAdmin.get(`tenants/${ACME}/extensions/${ext(n)}/agent_state`)).body;

  test('queue, ring no answer, answer, On Demand recording, suppression, kill, list, search, events', async () => {
    const supervisor = await openEventSocket(server, acmeAdmin.token);
    assert.deepEqual(supervisor.answer, { response: 'connect', success: true });
    const telco = await openEventSocket(server, admin.token);

    await sim(server, 'pstn/calls', { from: CALLER, to: '+15555550150', callerName: 'Pat Caller' });
    const queuedFrame = await supervisor.next((f) => f.event === 'call_queued');
    const id: string = queuedFrame.data.call.id;
    assert.equal(queuedFrame.category, 'call');
    assert.equal(queuedFrame.tenant_id, ACME);
    assert.match(queuedFrame.timestamp, /^2026-01-05T04:00:00-05:00$/);
    assert.equal(queuedFrame.data.call.calling.number, CALLER);

    // 101 (longest idle) rings.
    const offered = await supervisor.next((f) => f.event === 'call_offered');
    assert.equal(offered.data.agent_extension, '101');
    const ringing = await eventually(async () => {
      const s = await agentState('101');
      return s.phone_state.state === 'Ringing' ? s : undefined;
    }, '101 ringing');
    assert.equal(ringing.queue_state.state, 'Offered');
    assert.equal(ringing.queue_state.queue, 'Sales');
    const waiting = await acmeAdmin.get(`calls/${id}`);
    assert.equal(waiting.body.type, 'in_ecr');
    assert.equal(waiting.body.outcome, 'Progress');

    // No answer within the ring time: back to the queue, 101 missed one, 102 rings.
    await sim(server, 'clock/advance', { ms: 15_000 });
    await supervisor.next((f) => f.event === 'call_not_answered' && f.data.agent_extension === '101');
    await supervisor.next((f) => f.event === 'call_offered' && f.data.agent_extension === '102');
    assert.equal((await agentState('101')).consecutive_missed, 1);
    const stats = await supervisor.next(
      (f) => f.event === 'queue_statistics' && f.data.longest_wait === '00:00:15',
    );
    assert.equal(stats.category, 'inbound_queue');
    assert.equal(stats.data.waiting, 1);

    await eventually(async () => (await agentState('102')).phone_state.state === 'Ringing', '102 ringing');
    await sim(server, `devices/${phone('102')}/answer`);
    const answered = await supervisor.next((f) => f.event === 'call_answered');
    assert.equal(answered.data.agent_extension, '102');
    const talking = await eventually(async () => {
      const s = await agentState('102');
      return s.phone_state.state === 'Talking' ? s : undefined;
    }, '102 talking');
    assert.equal(talking.queue_state.state, 'Connected');
    assert.equal(talking.consecutive_missed, 0);

    // 102 records On Demand: nothing until stopSuppression asks for it.
    let live = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(live.type, 'in_ecr');
    assert.equal(live.success, true);
    assert.equal(live.outcome, 'Answered');
    assert.equal(live.is_recording, false);
    assert.equal(live.is_suppressed, true);
    assert.equal(live.callee_uuid, ext('102'));
    assert.equal(live.caller_uuid, '');
    await sim(server, 'clock/advance', { ms: 3_000 });
    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'stopSuppression' })).status, 200);
    live = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(live.is_recording, true);
    assert.equal(live.is_suppressed, false);
    await sim(server, 'clock/advance', { ms: 4_000 });
    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'startSuppression' })).status, 200);
    live = (await acmeAdmin.get(`calls/${id}`)).body;
    assert.equal(live.is_suppressed, true);
    assert.equal(live.being_marked, true);
    const again = await acmeAdmin.post(`calls/${id}`, { request: 'startSuppression' });
    assert.equal(again.status, 400);
    assert.equal(again.body.success, true, 'the startSuppression quirk');
    await sim(server, 'clock/advance', { ms: 2_000 });

    // A call that is not waiting refuses wait_*.
    const notWaiting = await acmeAdmin.post(`calls/${id}`, { request: 'wait_kill' });
    assert.equal(notWaiting.status, 400);
    assert.equal(notWaiting.body.success, false);

    assert.equal((await acmeAdmin.post(`calls/${id}`, { request: 'kill' })).status, 200);
    // Killed already: 400 with the normal body (issue 14), not 404.
    const killedAgain = await acmeAdmin.post(`calls/${id}`, { request: 'kill' });
    assert.equal(killedAgain.status, 400);
    assert.deepEqual(killedAgain.body, { success: false, reason: 'Call has ended' });
    // Readable at once, even while its durable record is being written.
    const right = await acmeAdmin.get(`calls/${id}`);
    assert.equal(right.status, 200);
    assert.equal(right.body.type, undefined);
    assert.equal(right.body.outcome, 'Answered');
    const ended = await supervisor.next((f) => f.event === 'call_ended');
    assert.equal(ended.data.call.id, id);

    // The finished call, from its durable record.
    const done = await eventually(async () => {
      const r = await acmeAdmin.get(`calls/${id}`);
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'call record');
    assert.equal(done.outcome, 'Answered');
    assert.equal(done.direction, 'in');
    assert.equal(done.wait_time, '00:00:15');
    assert.equal(done.duration, '00:00:09');
    assert.equal(done.is_recorded, 'true');
    assert.deepEqual(done.calling, { number: CALLER, name: 'Pat Caller' });
    assert.deepEqual(done.call_destination, { type: 'phone', number: '102', name: 'Carol Chen' });
    assert.equal(done.call_source.extension, '500');
    const types = done.call_details.map((d: { type: string }) => d.type);
    for (const t of ['inbound', 'called', 'offered', 'no_answer', 'answered', 'killed', 'disconnected']) {
      assert.ok(types.includes(t), `${t} in ${types}`);
    }
    assert.equal(types[0], 'inbound');
    assert.equal(types.at(-1), 'disconnected');
    assert.equal(done.recordings.length, 1);
    const rec = done.recordings[0];
    assert.equal(rec.extension, '102');
    assert.equal(rec.duration, '00:00:06');
    assert.deepEqual(
      rec.markers.map((m: { type: string; offset: string }) => [m.type, m.offset]),
      [
        ['suppression_stop', '00:00:00'],
        ['suppression_start', '00:00:04'],
      ],
    );

    const list = await acmeAdmin.get('calls');
    assert.equal(list.status, 200);
    assert.equal(typeof list.body.total, 'string');
    assert.ok(list.body.items.some((c: { id: string }) => c.id === id));

    const found = await acmeAdmin.get(
      `calls/filter?calling_number=${encodeURIComponent(CALLER)}&time_z=America/New_York`,
    );
    assert.equal(found.status, 200);
    assert.equal(found.body.call_details.id, id);
    assert.equal(found.body.call_details.time, '2026-01-05T04:00:00-05:00');
    assert.deepEqual(found.body.call_details.calling, { number: CALLER, name: 'Pat Caller' });
    const utc = await acmeAdmin.get(`calls/filter?called_number=%2B15555550150`);
    assert.equal(utc.body.call_details.time, '2026-01-05T09:00:00+00:00');
    const outside = await acmeAdmin.get(
      `calls/filter?calling_number=${encodeURIComponent(CALLER)}&from_datetime=2026-01-05T09:00:01`,
    );
    assert.equal(outside.status, 404);
    const none = await acmeAdmin.get('calls/filter');
    assert.equal(none.status, 400);
    assert.equal(none.body.success, true);

    // The supervisor's socket saw every step, in order.
    const seen = supervisor.frames.filter((f) => f.category === 'call').map((f) => f.event);
    const story = [
      'call_queued',
      'call_offered',
      'call_not_answered',
      'call_offered',
      'call_answered',
      'recording_started',
      'suppression_stopped',
      'suppression_started',
      'recording_stopped',
      'call_ended',
    ];
    assert.deepEqual(
      seen.filter((e) => story.includes(e)),
      story,
    );
    const phones = supervisor.frames.filter(
      (f) => f.event === 'phone_state_changed' && f.data.extension === '102',
    );
    assert.deepEqual(
      phones.map((f) => f.data.phone_state.state),
      ['Ringing', 'Talking', 'Idle'],
    );
    // The telco admin's socket sees the tenant's events too.
    assert.ok(telco.frames.some((f) => f.event === 'call_ended' && f.data.call.id === id));
    supervisor.close();
    telco.close();
  });

  test('Mandatory recording starts at answer', async () => {
    // Only 101 is Ready in Sales.
    for (const n of ['102', '103']) {
      assert.equal(
        (await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Break' })).status,
        200,
      );
    }
    await sim(server, 'pstn/calls', { from: '+15551230002', to: '+15555550150' });
    await eventually(async () => (await agentState('101')).phone_state.state === 'Ringing', '101 ringing');
    await sim(server, `devices/${phone('101')}/answer`);
    const live = await eventually(async () => {
      const items = (await acmeAdmin.get('calls')).body.items as {
        id: string;
        type?: string;
        is_recording: boolean;
        is_suppressed: boolean;
        outcome: string;
      }[];
      return items.find((c) => c.type === 'in_ecr' && c.outcome === 'Answered');
    }, 'answered call');
    assert.equal(live.is_recording, true);
    assert.equal(live.is_suppressed, false);

    // The queue call is among the agent's calls on the voice API; holding it there counts as hold time.
    const voice = await server.fetch('/api/v1/calls', { auth: '101@1001:1234' });
    assert.equal(voice.status, 200);
    const legs: { callId: string; smdrCallId: string }[] = [];
    JSON.stringify(await voice.json(), (_k, v) => {
      if (v && typeof v === 'object' && 'smdrCallId' in v) legs.push(v);
      return v;
    });
    const leg = legs.find((l) => l.smdrCallId === live.id);
    assert.ok(leg, 'the queue call is listed for 101');
    const request = (callRequest: string) =>
      server.fetch(`/api/v1/calls/${leg.callId}`, {
        method: 'POST',
        auth: '101@1001:1234',
        json: { callRequest, myPartyId: '101@1001' },
      });
    assert.ok((await request('holdCall')).status < 300);
    await eventually(async () => (await agentState('101')).phone_state.state === 'Hold', '101 on hold');
    await sim(server, 'clock/advance', { ms: 2_000 });
    assert.ok((await request('resumeHeldCall')).status < 300);
    await eventually(
      async () => (await agentState('101')).phone_state.state === 'Talking',
      '101 talking again',
    );
    await sim(server, `devices/${phone('101')}/hangup`);
    const done = await eventually(async () => {
      const r = await acmeAdmin.get(`calls/${live.id}`);
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'finished call');
    assert.equal(done.hold_time, '00:00:02');
    assert.equal(done.recordings[0].extension, '101');
    for (const n of ['102', '103']) {
      await acmeAdmin.post(`extensions/${ext(n)}`, { request: 'updateAgentState', name: 'Ready' });
    }
  });
});
