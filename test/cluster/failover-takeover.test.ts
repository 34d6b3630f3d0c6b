/**
 * Two cluster nodes on one PostgreSQL database, ownership set by the membership double (the
 * lease rows written by the test, so the real fence checks every write): node A runs tenant 1001
 * with live calls and dies; B is given the tenant (previous owner A) and its subscribers hear
 * every cut call end with "node lost", the records are in the contact-center API, the queued
 * outside caller waits on at B, agents are back in their states. A write under the stale epoch
 * is refused.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { StaleEpochError } from '../../src/core/cluster.js';
import { DEMO } from '../../src/directory/demo-ids.js';
import { buildApp } from '../../src/server/app.js';
import { DEFAULTS } from '../../src/server/config.js';
import { startFailover } from '../../src/server/failover.js';
import { createRuntime, type Runtime } from '../../src/server/runtime.js';
import { type DatabaseTarget, type Db, openDatabase } from '../../src/store/database.js';
import { LiveStateStore } from '../../src/store/live-state.js';
import { openEventSocket } from '../api/ccs/cc-client.js';
import { openSocket } from '../api/voice/voice-helpers.js';
import type { TestServer } from '../helpers/server.js';
import { StaticMembership } from '../helpers/static-membership.js';
import { clusterEnv, NATS_URL, PG_URL, uniqueName } from '../helpers/cluster.js';
import { ccToken, eventually, freshSchema, request } from './failover-helpers.js';

const ALICE = '100@1001:1234';
const BOB = '101@1001:1234';
const ADMIN = 'admin:admin';
const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);
const phone = (n: string) => DEMO.deviceId(1001, n);

interface Node {
  id: string;
  runtime: Runtime;
  app: FastifyInstance;
  url: string;
  membership: StaticMembership;
  close(): Promise<void>;
}

/**
 * A cluster node whose membership is the double: the lease membership is never started, so
 * ownership is only what the test assigns. The runtime's own fence (the lease table) stays.
 */
async function startNode(id: string, target: DatabaseTarget, clusterName: string): Promise<Node> {
  const config = {
    ...DEFAULTS,
    port: 0,
    clock: 'virtual' as const,
    logLevel: 'silent',
    nats: [NATS_URL],
    clusterName,
    nodeId: id,
  };
  const runtime = await createRuntime(config, pino({ level: 'silent' }), target);
  const membership = new StaticMembership(id);
  runtime.membership = membership;
  const app = await buildApp(runtime);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const stop = await startFailover(runtime);
  const { port } = app.server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  return {
    id,
    runtime,
    app,
    url: `http://127.0.0.1:${port}`,
    membership,
    close: () =>
      (closed ??= (async () => {
        stop();
        await app.close();
        await runtime.close();
      })()),
  };
}

describe('a tenant taken over from a node that died', { concurrency: false }, () => {
  let skip = false;
  let schema: ReturnType<typeof freshSchema>;
  let target: DatabaseTarget;
  let fenceDb: Db;
  let a: Node;
  let b: Node;
  let epoch = 0;

  /** The lease row of the tenant goes to `to` under a new epoch, and both nodes hear it. */
  const handOver = async (tenantId: number, to: Node) => {
    epoch++;
    const lease = { owner_node: to.id, epoch, expires_at: Date.now() + 3_600_000, granted_at: Date.now() };
    await fenceDb.kysely
      .insertInto('tenant_leases')
      .values({ tenant_id: tenantId, ...lease })
      .onConflict((oc) => oc.column('tenant_id').doUpdateSet(lease))
      .execute();
    for (const n of [a, b]) await n.membership.assign(tenantId, to.id);
  };

  before(async () => {
    if ((await clusterEnv()).skip) {
      skip = true;
      return;
    }
    schema = freshSchema();
    target = { kind: 'postgres', url: PG_URL, schema: schema.schema };
    fenceDb = await openDatabase(target);
    const clusterName = uniqueName('c').replace(/_/g, '-');
    a = await startNode('A', target, clusterName);
    b = await startNode('B', target, clusterName);
  });
  after(async () => {
    if (skip) return;
    await a.close();
    await b.close();
    await fenceDb.close();
    await schema.drop();
  });

  test('the cut calls end on B with "node lost"; the waiting caller and the agents carry on', async (t) => {
    if (skip) return t.skip('no PostgreSQL or NATS');
    await handOver(1001, a);
    assert.equal(a.runtime.membership.owns(1001), true);

    // Subscribers on B: a voice socket (calls and presence of every user) and a contact-center socket.
    const voice = await openSocket({ wsUrl: b.url.replace('http', 'ws') } as TestServer, ALICE);
    const set = await request(b.url, 'POST', `/api/v1/subscriptions/ws/${voice.id}/subscriptionsets`, {
      auth: ALICE,
    });
    assert.equal(set.status, 200);
    const links = set.body._links;
    for (const [rel, accounts] of [
      ['v1:callEventSubscriptions', ['ALL_USERS@1001']],
      ['v1:presenceEventSubscriptions', ['ALL_USERS@1001']],
    ] as const) {
      const put = await request(b.url, 'PUT', links[rel].href, {
        auth: ALICE,
        json: { eventAccounts: accounts },
      });
      assert.equal(put.status, 200, rel);
    }
    const acmeOnB = await ccToken(b.url, '100@1001');
    const supervisor = await openEventSocket(
      { httpUrl: b.url } as TestServer,
      acmeOnB.slice('Bearer '.length),
    );
    assert.equal(supervisor.answer.success, true);

    // On A: Dan takes a break, Bob talks to Carol, an outside caller waits in Sales.
    const acmeOnA = await ccToken(a.url, '100@1001');
    const agentPath = (n: string) => `/6/v2/api/tenants/${ACME}/extensions/${ext(n)}`;
    const onBreak = await request(a.url, 'POST', agentPath('103'), {
      auth: acmeOnA,
      json: { request: 'updateAgentState', name: 'Break' },
    });
    assert.equal(onBreak.status, 200);
    const made = await request(a.url, 'POST', '/api/v1/calls', {
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const { smdrCallId, callId } = made.body as { smdrCallId: string; callId: string };
    const answered = await request(a.url, 'POST', `/sim/v1/devices/${phone('102')}/answer`, {
      auth: ADMIN,
      json: {},
    });
    assert.equal(answered.status, 200);
    const inbound = await request(a.url, 'POST', '/sim/v1/pstn/calls', {
      auth: ADMIN,
      json: { from: '+15551230001', to: '+15555550150', callerName: 'Pat Caller' },
    });
    assert.equal(inbound.status, 201);
    const live = async () =>
      (await fenceDb.kysely.selectFrom('live_calls').selectAll().execute()).map((r) => ({
        id: r.smdr_call_id,
        owner: r.owner_node,
        epoch: Number(r.epoch),
        waiting: r.waiting,
      }));
    await eventually(async () => (await live()).length === 2, "A's live calls written");
    assert.equal(voice.frames.length, 0, 'B published nothing of a tenant it does not run');

    // A dies; its tenant goes to B.
    await a.close();
    await handOver(1001, b);
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
      const r = await request(b.url, 'GET', `/6/v2/api/calls/${smdrCallId}`, { auth: acmeOnB });
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
    const dan = await request(b.url, 'GET', `${agentPath('103')}/agent_state`, { auth: acmeOnB });
    assert.equal(dan.body.agent_state.state.name, 'Break');
    const state = await request(b.url, 'GET', '/sim/v1/state', { auth: ADMIN });
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

  test('a write or a claim under a stale epoch is refused, and changes nothing', async (t) => {
    if (skip) return t.skip('no PostgreSQL or NATS');
    const store = new LiveStateStore(fenceDb, () => b.runtime.epochFence);
    const before = await fenceDb.kysely.selectFrom('live_calls').selectAll().execute();
    const stale = { nodeId: 'A', epoch: 1 };
    await assert.rejects(
      store.apply({
        tenantId: 1001,
        lease: stale,
        at: 0,
        calls: [{ smdrCallId: '1', waiting: false, startedAt: 0, data: {} }],
        agents: [],
        removed: before.map((r) => r.smdr_call_id),
        records: [],
      }),
      StaleEpochError,
    );
    await assert.rejects(store.claim(1001, stale), StaleEpochError);
    assert.deepEqual(await fenceDb.kysely.selectFrom('live_calls').selectAll().execute(), before);
    // The owner's own epoch passes.
    await store.apply({
      tenantId: 1001,
      lease: { nodeId: 'B', epoch: 2 },
      at: 0,
      calls: [],
      agents: [],
      removed: [],
      records: [],
    });
  });
});
