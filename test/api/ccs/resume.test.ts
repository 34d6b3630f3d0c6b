import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { CcClient } from './cc-client.js';
import { drop, openCc, type RecordingSocket } from '../../helpers/resume.js';

const ACME = DEMO.extensionUuid(1001, '103');

const connect = openCc;

const events = (sock: RecordingSocket) => sock.frames.filter((f) => typeof f.event === 'string');
const close = async (sock: RecordingSocket) => {
  sock.ws.close();
  await sock.closed;
};

let away = false;
/** Agent 103 changes state (Away ↔ Ready): one agent_state_changed each. */
async function toggleOf(admin: CcClient, n: number) {
  for (let i = 0; i < n; i++) {
    away = !away;
    const r = await admin.post(`extensions/${ACME}`, {
      request: 'updateAgentState',
      name: away ? 'Meeting' : 'Ready',
    });
    assert.equal(r.status, 200);
  }
}

describe('contact-center socket: resume', () => {
  let s: TestServer;
  let admin: CcClient;
  const toggle = (n: number) => toggleOf(admin, n);
  before(async () => {
    s = await startTestServer();
    admin = await CcClient.login(s, '100@1001');
  });
  after(() => s.stop());

  test('a connect without resume is answered exactly as before', async () => {
    const { sock, answer } = await connect(s, admin.token);
    assert.deepEqual(answer, { response: 'connect', success: true });
    await toggle(1);
    const [e] = await sock.waitFor(2).then(() => events(sock));
    assert.equal('sequence' in e, false);
    await close(sock);
  });

  test('drop, events while away, resume: the subscription back, every event once and in order', async () => {
    const { sock, answer } = await connect(s, admin.token, true);
    assert.equal(answer.resumed, false);
    assert.equal(typeof answer.session, 'string');
    const tenant = Object.keys(answer.sequences);
    assert.equal(tenant.length, 1, 'a tenant user follows one tenant');
    sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
    await sock.waitFor(2);
    await toggle(3);
    await sock.waitFor(5);
    const seen = events(sock).map((f) => f.sequence as number);
    assert.equal(seen.length, 3);
    assert.ok(seen[0] > answer.sequences[tenant[0]] && seen[1] > seen[0] && seen[2] > seen[1]);
    // The client processed two frames, then the network dropped.
    sock.ws.terminate();
    await sock.closed;
    await new Promise((r) => setTimeout(r, 50));
    await toggle(2);
    const again = await connect(s, admin.token, { session: answer.session, after: { [tenant[0]]: seen[1] } });
    assert.deepEqual(again.answer, {
      response: 'connect',
      success: true,
      session: answer.session,
      resumed: true,
      sequences: { [tenant[0]]: seen[1] },
    });
    await toggle(1);
    await again.sock.waitFor(1 + 4);
    const got = events(again.sock);
    assert.ok(
      got.every((f) => f.event === 'agent_state_changed'),
      'the subscription came back',
    );
    const seqs = got.map((f) => f.sequence as number);
    assert.equal(seqs[0], seen[2], 'the unprocessed frame comes again');
    for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1], 'in order');
    assert.equal(new Set(seqs).size, seqs.length, 'no duplicate');
    assert.deepEqual(
      got.map((f) => (f.data as { agent_state: { state: { type: string } } }).agent_state.state.type),
      ['ready', 'away', 'ready', 'away'],
    );
    await close(again.sock);
  });

  test('someone else’s session, or a session past its grace, cannot be resumed', async () => {
    const { sock, answer } = await connect(s, admin.token, true);
    sock.ws.terminate();
    await sock.closed;
    await new Promise((r) => setTimeout(r, 50));
    const other = await CcClient.login(s, '101@1001');
    const thief = await connect(s, other.token, { session: answer.session, after: answer.sequences });
    assert.equal(thief.answer.resumed, false);
    assert.equal(thief.answer.reason, 'expired');
    assert.notEqual(thief.answer.session, answer.session);
    await close(thief.sock);
    const adv = await s.fetch('/sim/v1/clock/advance', {
      auth: 'admin:admin',
      method: 'POST',
      json: { ms: 121_000 },
    });
    assert.equal(adv.status, 200);
    const late = await connect(s, admin.token, { session: answer.session, after: answer.sequences });
    assert.equal(late.answer.resumed, false);
    assert.equal(late.answer.reason, 'expired');
    await close(late.sock);
  });

  test('a telco session follows every tenant: one sequence per tenant, resumed per tenant', async () => {
    const telco = await CcClient.login(s, 'admin');
    const { sock, answer } = await connect(s, telco.token, true);
    assert.ok(Object.keys(answer.sequences).length >= 2, 'every tenant');
    sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
    await sock.waitFor(2);
    sock.ws.terminate();
    await sock.closed;
    await new Promise((r) => setTimeout(r, 50));
    await toggle(2);
    // The client saw nothing meanwhile: it resumes with the sequences the connect answer gave.
    const again = await connect(s, telco.token, { session: answer.session, after: answer.sequences });
    assert.equal(again.answer.resumed, true);
    await again.sock.waitFor(3);
    const got = events(again.sock);
    assert.equal(got.length, 2);
    const acme = got[0].tenant_id as string;
    assert.ok(got.every((f) => f.tenant_id === acme));
    assert.ok((got[1].sequence as number) > (got[0].sequence as number));
    assert.ok((got[0].sequence as number) > answer.sequences[acme]);
    await close(again.sock);
  });

  test('a malformed resume is refused and the socket closes', async () => {
    const { sock, answer } = await connect(s, admin.token, { session: 'x', after: 3 });
    assert.deepEqual(answer, { response: 'connect', success: false, reason: 'Invalid resume' });
    await sock.closed;
  });
});

describe('contact-center socket: resume across a restart of the node', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-cc-resume-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('events missed before the restart are replayed by the restarted node, with the subscription', async () => {
    const db = join(dir, 'resume.db');
    const first = await startTestServer({ db });
    away = false; // a new demo world: agent 103 is Ready
    const admin = await CcClient.login(first, '100@1001');
    const { sock, answer } = await connect(first, admin.token, true);
    const [tenant] = Object.keys(answer.sequences);
    sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
    await sock.waitFor(2);
    await toggleOf(admin, 2);
    await sock.waitFor(4);
    const last = events(sock).at(-1)!.sequence as number;
    await drop(sock);
    await toggleOf(admin, 3);
    await first.stop();

    const second = await startTestServer({ db });
    try {
      const again = await connect(second, (await CcClient.login(second, '100@1001')).token, {
        session: answer.session,
        after: { [tenant]: last },
      });
      assert.equal(again.answer.resumed, true);
      assert.equal(again.answer.session, answer.session);
      await again.sock.waitFor(1 + 3);
      const missed = events(again.sock);
      assert.ok(
        missed.every((f) => f.event === 'agent_state_changed'),
        'the subscription came back',
      );
      const seqs = missed.map((f) => f.sequence as number);
      assert.ok(seqs[0] > last, 'nothing processed comes again');
      for (let i = 1; i < seqs.length; i++) assert.ok(seqs[i] > seqs[i - 1], 'in order, once');
      // The stream goes on after the restart: a new event is later than every replayed one.
      const admin2 = await CcClient.login(second, '100@1001');
      const r = await admin2.post(`extensions/${ACME}`, { request: 'updateAgentState', name: 'Break' });
      assert.equal(r.status, 200);
      await again.sock.waitFor(1 + 4);
      assert.ok((events(again.sock).at(-1)!.sequence as number) > seqs.at(-1)!, 'never reused');
      assert.deepEqual(
        events(again.sock).map(
          (f) => (f.data as { agent_state: { state: { name: string } } }).agent_state.state.name,
        ),
        ['Meeting', 'Ready', 'Meeting', 'Break'],
        'the three missed, then the live one: none lost, none twice',
      );
      await close(again.sock);
    } finally {
      await second.stop();
    }
  });
});
