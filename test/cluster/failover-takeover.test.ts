/**
 * Two cluster nodes on one PostgreSQL schema (test/helpers/cluster-nodes.ts: ownership set by the
 * membership double, which writes the lease rows a grant would, so the real lease fence checks
 * every write): node A runs tenant 1001 with live calls and stops without handing it over (its
 * process gone, as after a crash once its last batch was written); B is given the tenant (previous
 * owner A) and its subscribers hear every cut call end with "node lost", the records are in both
 * APIs, the queued outside caller waits on at B, agents are back in their states. A write under
 * the stale epoch is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { StaleEpochError } from '../../src/core/cluster.js';
import { DEMO } from '../../src/directory/demo-ids.js';
import { LiveStateStore } from '../../src/store/live-state.js';
import { openEventSocket } from '../api/ccs/cc-client.js';
import { openSocket } from '../api/voice/voice-helpers.js';
import { clusterEnv } from '../helpers/cluster.js';
import { PG_URL } from '../helpers/cluster-engines.js';
import { type ClusterNode, startCluster, type TestCluster } from '../helpers/cluster-nodes.js';
import { ccToken, eventually, request } from './failover-helpers.js';

const ALICE = '100@1001:1234';
const BOB = '101@1001:1234';
const ADMIN = 'admin:admin';
const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);

const env = await clusterEnv();

describe('a tenant taken over from a node that died', { concurrency: false, skip: env.skip }, () => {
  let cluster: TestCluster;
  let a: ClusterNode;
  let b: ClusterNode;

  before(async () => {
    cluster = await startCluster(['A', 'B'], { 1001: 'A', 1002: 'B' });
    a = cluster.node('A');
    b = cluster.node('B');
  });
  after(async () => cluster?.stop());

  test('the cut calls end on B with "node lost"; the waiting caller and the agents carry on', async () => {
    assert.equal(a.runtime.membership.owns(1001), true);

    // Subscribers on B: a voice socket (calls and presence of every user) and a contact-center socket.
    const voice = await openSocket(b, ALICE);
    const set = await request(b.httpUrl, 'POST', `/api/v1/subscriptions/ws/${voice.id}/subscriptionsets`, {
      auth: ALICE,
    });
    assert.equal(set.status, 200);
    const links = set.body._links;
    for (const [rel, accounts] of [
      ['v1:callEventSubscriptions', ['ALL_USERS@1001']],
      ['v1:presenceEventSubscriptions', ['ALL_USERS@1001']],
    ] as const) {
      const put = await request(b.httpUrl, 'PUT', links[rel].href, {
        auth: ALICE,
        json: { eventAccounts: accounts },
      });
      assert.equal(put.status, 200, rel);
    }
    const acmeOnB = await ccToken(b.httpUrl, '100@1001');
    const supervisor = await openEventSocket(b, acmeOnB.slice('Bearer '.length));
    assert.equal(supervisor.answer.success, true);

    // On A: Dan takes a break, Bob talks to Carol, an outside caller waits in Sales.
    const acmeOnA = await ccToken(a.httpUrl, '100@1001');
    const agentPath = (n: string) => `/6/v2/api/tenants/${ACME}/extensions/${ext(n)}`;
    const onBreak = await request(a.httpUrl, 'POST', agentPath('103'), {
      auth: acmeOnA,
      json: { request: 'updateAgentState', name: 'Break' },
    });
    assert.equal(onBreak.status, 200);
    const made = await request(a.httpUrl, 'POST', '/api/v1/calls', {
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const { smdrCallId, callId } = made.body as { smdrCallId: string; callId: string };
    const answered = await request(a.httpUrl, 'POST', `/sim/v1/devices/${phone('102')}/answer`, {
      auth: ADMIN,
      json: {},
    });
    assert.equal(answered.status, 200);
    const inbound = await request(a.httpUrl, 'POST', '/sim/v1/pstn/calls', {
      auth: ADMIN,
      json: { from: '+15551230001', to: '+15555550150', callerName: 'Pat Caller' },
    });
    assert.equal(inbound.status, 201);
    const live = async () =>
      (await b.runtime.db.kysely.selectFrom('live_calls').selectAll().execute()).map((r) => ({
        id: r.smdr_call_id,
        owner: r.owner_node,
        epoch: Number(r.epoch),
        waiting: r.waiting,
      }));
    await eventually(async () => (await live()).length === 2, "A's live calls written");
    assert.equal(voice.frames.length, 0, 'B published nothing of a tenant it does not run');

    // A dies; its tenant goes to B.
    await cluster.stopNode('A');
    await cluster.assign(1001, 'B');
    assert.equal(b.runtime.membership.epochOf(1001), 2);

    // Voice subscribers on B hear both legs end, with the reason, on the legs they knew.
    const ends = await eventually(async () => {
      const e = voice.frames.filter((f) => f.event === 'end');
      return e.length >= 2 ? e : undefined;
    }, 'two end events on B');
    assert.deepEqual(ends.map((e) => e.observedParty).sort(), ['101@1001', '102@1001']);
    for (const e of ends) {
      assert.equal(e.endReason, 'node lost');
      assert.equal(String(e.smdrCallId), smdrCallId);
    }
    assert.equal(String(ends.find((e) => e.observedParty === '101@1001')!.callId), callId);
    const idle = voice.frames.filter((f) => f.event === 'idle').map((f) => f.observedParty);
    assert.deepEqual(idle.sort(), ['101@1001', '102@1001'], 'presence says the phones are idle again');

    // The contact-center API on B has the record; its last step says why.
    const record = await eventually(async () => {
      const r = await request(b.httpUrl, 'GET', `/6/v2/api/calls/${smdrCallId}`, { auth: acmeOnB });
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'the finished record on B');
    assert.equal(record.outcome, 'Answered');
    assert.deepEqual(record.call_details.at(-1).event, 'Disconnected (node lost)');

    // Agents on B: Dan still on a break; Bob's and Carol's phones went idle; the waiting caller is offered.
    const phoneIdle = await supervisor.next(
      (f) => f.event === 'phone_state_changed' && f.data.extension === '101',
    );
    assert.equal(phoneIdle.data.phone_state.state, 'Idle');
    const offered = await supervisor.next((f) => f.event === 'call_offered');
    assert.ok(['101', '102'].includes(offered.data.agent_extension));
    const dan = await request(b.httpUrl, 'GET', `${agentPath('103')}/agent_state`, { auth: acmeOnB });
    assert.equal(dan.body.agent_state.state.name, 'Break');
    const state = await request(b.httpUrl, 'GET', '/sim/v1/state', { auth: ADMIN });
    const waiting = state.body.pstnCalls.find(
      (p: { pstnCallId: string }) => p.pstnCallId === inbound.body.pstnCallId,
    );
    assert.ok(waiting, 'the outside caller is on B, same leg');

    // The rows: the record's call is gone; the waiting call is B's now, under its epoch.
    const rows = await eventually(async () => {
      const r = await live();
      return r.length === 1 && r[0]!.owner === 'B' ? r : undefined;
    }, 'the waiting call rewritten by B');
    assert.equal(rows[0]!.epoch, 2);
    assert.notEqual(rows[0]!.id, smdrCallId);

    await voice.close();
    await supervisor.close();
  });

  test('a write or a claim under a stale epoch is refused, and changes nothing', async () => {
    const store = new LiveStateStore(b.runtime.db);
    const before = await b.runtime.db.kysely.selectFrom('live_calls').selectAll().execute();
    const history = () => b.runtime.db.kysely.selectFrom('live_call_history').selectAll().execute();
    const historyBefore = await history();
    const stale = { nodeId: 'A', epoch: 1 };
    await assert.rejects(
      store.apply({
        tenantId: 1001,
        lease: stale,
        at: 0,
        calls: [
          { smdrCallId: '1', waiting: false, startedAt: 0, data: {}, history: { from: 0, items: ['x'] } },
        ],
        agents: [],
        devices: [],
        removed: before.map((r) => r.smdr_call_id),
        records: [],
      }),
      StaleEpochError,
    );
    await assert.rejects(store.claim(1001, stale), StaleEpochError);
    assert.deepEqual(await b.runtime.db.kysely.selectFrom('live_calls').selectAll().execute(), before);
    assert.deepEqual(await history(), historyBefore);
    // The owner's own epoch passes.
    await store.apply({
      tenantId: 1001,
      lease: { nodeId: 'B', epoch: 2 },
      at: 0,
      calls: [],
      agents: [],
      devices: [],
      removed: [],
      records: [],
    });
  });

  test('a request that reaches the new owner during its takeover waits for it: what it sets is kept', async () => {
    // B runs tenant 1001 now. Dan (104) takes a break there, and B stores it.
    const c = await cluster.addNode('C');
    const acme = await ccToken(b.httpUrl, '100@1001');
    const dan = `/6/v2/api/tenants/${ACME}/extensions/${ext('104')}`;
    const onBreak = await request(b.httpUrl, 'POST', dan, {
      auth: acme,
      json: { request: 'updateAgentState', name: 'Break' },
    });
    assert.equal(onBreak.status, 200, JSON.stringify(onBreak.body));
    const stored = () =>
      b.runtime.db.kysely
        .selectFrom('cc_agent_states')
        .select('data')
        .where('tenant_id', '=', 1001)
        .where('ext', '=', '104')
        .executeTakeFirst();
    await eventually(async () => (await stored())?.data.includes('Break'), "Dan's break stored");

    // B lets the tenant go (and writes nothing of it from then on); C is given it while the
    // agents' table is held, so its takeover waits on the database.
    await b.membership.assign(1001, 'C');
    const pg = await import('pg');
    const lock = new pg.default.Client({ connectionString: PG_URL });
    await lock.connect();
    await lock.query(`set search_path to ${cluster.schema}`);
    await lock.query('begin');
    await lock.query('lock table cc_agent_states in access exclusive mode');
    let gained: Promise<void> | undefined;
    let set: ReturnType<typeof request> | undefined;
    try {
      gained = c.membership.assign(1001, 'C');
      await eventually(async () => c.runtime.membership.owns(1001) || undefined, 'C owns the tenant');
      // Dan is made ready on C, the owner now, before its takeover is done.
      let answered = false;
      set = request(c.httpUrl, 'POST', dan, {
        auth: acme,
        json: { request: 'updateAgentState', name: 'Ready' },
      });
      void set.then(
        () => (answered = true),
        () => (answered = true),
      );
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(answered, false, 'the request waits for the takeover');
    } finally {
      await lock.query('commit');
      await lock.end();
    }
    await gained;
    assert.equal((await set!).status, 200);
    const now = await request(c.httpUrl, 'GET', `${dan}/agent_state`, { auth: acme });
    assert.equal(now.body.agent_state.state.name, 'Ready', 'not overwritten by the restored break');
  });
});
