/**
 * Two real nodes (child processes) on one PostgreSQL database and NATS, leases as the cluster
 * runs them: the owner of tenant 1001 is killed (kill -9) with a connected call, an outside caller
 * waiting in a queue and an agent on a break. The other node owns the tenant within the lease
 * TTL + 1 s; the call's legs end with "node lost" on a socket of the surviving node, its record is
 * in the contact-center API there, the waiting caller waits on and is offered there, the agent is
 * still on a break; a resumable voice socket of the survivor that dropped before the kill resumes
 * after the takeover without a gap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO } from '../../src/directory/demo-ids.js';
import { openDatabase } from '../../src/store/database.js';
import { openEventSocket } from '../api/ccs/cc-client.js';
import { openSocket } from '../api/voice/voice-helpers.js';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import { drop, openVoice, sequences } from '../helpers/resume.js';
import type { TestServer } from '../helpers/server.js';
import { ccToken, eventually, request } from './failover-helpers.js';

const env = await clusterEnv();
const TTL = 2000;
const ALICE = '100@1001:1234';
const BOB = '101@1001:1234';
const CAROL = '102@1001:1234';
const ADMIN = 'admin:admin';
const agentPath = (n: string) =>
  `/6/v2/api/tenants/${DEMO.acme.ccUuid}/extensions/${DEMO.extensionUuid(1001, n)}`;

interface View {
  nodes: { id: string; alive: boolean; tenants: { tenantId: number; epoch: number }[] }[];
}

async function ownerOf(
  node: ClusterNode,
  tenantId: number,
): Promise<{ id: string; epoch: number } | undefined> {
  const r = await node.fetch('/cluster', { auth: ADMIN });
  if (r.status !== 200) return undefined;
  const v = (await r.json()) as View;
  for (const n of v.nodes) {
    const t = n.alive ? n.tenants.find((x) => x.tenantId === tenantId) : undefined;
    if (t) return { id: n.id, epoch: t.epoch };
  }
  return undefined;
}

describe('kill -9 of the node that runs a tenant with live calls', { skip: env.skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterNodes({ nodes: 2, leaseTtlMs: TTL });
  });
  after(async () => cluster?.stop());

  it('the survivor takes the tenant within TTL + 1 s; cut calls end with "node lost" there; queue and agents carry on', async (t) => {
    const first = await eventually(() => ownerOf(cluster.nodes[0]!, 1001), 'an owner of 1001', 20_000);
    const owner = cluster.nodes.find((n) => n.nodeId === first.id)!;
    const survivor = cluster.nodes.find((n) => n !== owner)!;
    const on = survivor as unknown as TestServer;
    const at = (path: string, method = 'GET', opts: { auth?: string; json?: unknown } = {}) =>
      request(survivor.httpUrl, method, path, opts);
    const subscribe = async (socketId: string, auth: string, accounts: string[]) => {
      const set = await at(`/api/v1/subscriptions/ws/${socketId}/subscriptionsets`, 'POST', { auth });
      assert.equal(set.status, 200);
      for (const rel of ['v1:callEventSubscriptions', 'v1:presenceEventSubscriptions']) {
        const put = await at(set.body._links[rel].href, 'PUT', { auth, json: { eventAccounts: accounts } });
        assert.equal(put.status, 200, rel);
      }
    };

    // On the survivor: Alice's resumable voice socket (calls and presence of every user, frames
    // with their stream sequence), Carol's resumable socket on her own, a contact-center supervisor.
    const voice = await openSocket(on, ALICE, '/api/ws?resume');
    await subscribe(voice.id, ALICE, ['ALL_USERS@1001']);
    const carol = await openVoice(on, CAROL, '?resume');
    const [hello] = await carol.waitFor(1);
    const carolSocket = String(hello!.webSocketId);
    await subscribe(carolSocket, CAROL, ['102@1001']);
    const acme = await ccToken(survivor.httpUrl, '100@1001');
    const supervisor = await openEventSocket(on, acme.slice(7));
    assert.equal(supervisor.answer.success, true);

    // Through the survivor (forwarded to the owner): agent 104 takes a break; Bob talks to Carol;
    // an outside caller waits in Sales, ringing Dan (103).
    const onBreak = await at(agentPath('104'), 'POST', {
      auth: acme,
      json: { request: 'updateAgentState', name: 'Break' },
    });
    assert.equal(onBreak.status, 200);
    const made = await at('/api/v1/calls', 'POST', { auth: BOB, json: { from: '101@1001', to: '102' } });
    assert.equal(made.status, 201);
    const { smdrCallId } = made.body as { smdrCallId: string };
    assert.equal(
      (await at(`/sim/v1/devices/${DEMO.deviceId(1001, '102')}/answer`, 'POST', { auth: ADMIN, json: {} }))
        .status,
      200,
    );
    const inbound = await at('/sim/v1/pstn/calls', 'POST', {
      auth: ADMIN,
      json: { from: '+15551230001', to: '+15555550150', callerName: 'Pat Caller' },
    });
    assert.equal(inbound.status, 201);
    const ringing = await supervisor.next((f) => f.event === 'call_offered');
    const rungAgent = `${ringing.data.agent_extension}@1001`;
    assert.equal(rungAgent, '103@1001', 'the one free agent of Sales is rung');

    const db = await openDatabase({ kind: 'postgres', url: cluster.databaseUrl });
    try {
      await eventually(async () => {
        const calls = await db.kysely.selectFrom('live_calls').select('smdr_call_id').execute();
        const agents = await db.kysely.selectFrom('cc_agent_states').select('ext').execute();
        return calls.length === 2 && agents.some((a) => a.ext === '104');
      }, "the owner's live calls and agent 104's state written");
    } finally {
      await db.close();
    }

    // Carol's connection drops with her call connected; she keeps the last sequence she saw.
    await eventually(
      () => Promise.resolve(carol.frames.some((f) => f.event === 'answer')),
      "Carol's answer on her socket",
    );
    await drop(carol);
    const cursor = Math.max(...sequences(carol.frames));

    const killedAt = performance.now();
    await owner.kill();
    const next = await eventually(
      async () => {
        const o = await ownerOf(survivor, 1001);
        return o && o.id === survivor.nodeId ? o : undefined;
      },
      'the survivor owning 1001',
      TTL + 10_000,
    );
    const takenMs = performance.now() - killedAt;
    t.diagnostic(`tenant 1001 owned by the survivor ${Math.round(takenMs)} ms after kill -9 (TTL ${TTL} ms)`);
    assert.ok(next.epoch > first.epoch);
    assert.ok(
      takenMs <= TTL + 1000,
      `taken over ${Math.round(takenMs)} ms after kill -9 (TTL ${TTL} ms + 1 s)`,
    );

    // Every leg of the cut calls ends with the reason, on the survivor's socket.
    const lost = (f: Record<string, unknown>) => f.event === 'end' && f.endReason === 'node lost';
    const ends = await eventually(() => {
      const e = voice.frames.filter((f) => lost(f) && String(f.smdrCallId) === smdrCallId);
      return Promise.resolve(e.length >= 2 ? e : undefined);
    }, 'the end events with node lost');
    assert.deepEqual(ends.map((e) => e.observedParty).sort(), ['101@1001', '102@1001']);
    const ring = await eventually(
      () => Promise.resolve(voice.frames.find((f) => lost(f) && f.observedParty === rungAgent)),
      'the end of the offer that rang on the dead node',
    );
    assert.equal(ring.endingParty, 'system');

    // The record on the survivor's contact-center API, in the list and by id.
    const record = await eventually(async () => {
      const r = await at(`/6/v2/api/calls/${smdrCallId}`, 'GET', { auth: acme });
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'the finished record');
    assert.equal(record.outcome, 'Answered');
    assert.equal(record.call_details.at(-1).event, 'Disconnected (node lost)');
    const list = await at('/6/v2/api/calls', 'GET', { auth: acme });
    assert.ok(list.body.items.some((c: { id: string; type?: string }) => c.id === smdrCallId && !c.type));

    // The waiting caller is on the survivor and offered again there; agent 104 is still on a break.
    const state = await at('/sim/v1/state', 'GET', { auth: ADMIN });
    assert.ok(
      state.body.pstnCalls.some((p: { pstnCallId: string }) => p.pstnCallId === inbound.body.pstnCallId),
    );
    const reoffered = await supervisor.next((f) => f.event === 'call_offered' && f !== ringing, 8000);
    assert.equal(reoffered.data.call.id, ringing.data.call.id, 'the same call, offered again');
    const onBreakStill = await at(`${agentPath('104')}/agent_state`, 'GET', { auth: acme });
    assert.equal(onBreakStill.status, 200);
    assert.equal(onBreakStill.body.agent_state.state.name, 'Break');

    // Carol resumes on the survivor: every event of hers after her cursor, once and in order, as
    // Alice's live socket saw them (one sequence line across the failover), then live.
    const mine = (f: Record<string, unknown>) =>
      f.observedParty === '102@1001' && Number(f.sequence) > cursor;
    const expected = await eventually(() => {
      const e = voice.frames.filter(mine);
      return Promise.resolve(e.some((f) => f.event === 'idle') && e.some(lost) ? e : undefined);
    }, "Carol's end and idle on Alice's socket");
    const again = await openVoice(on, CAROL, `?resume=${carolSocket}&after=${cursor}`);
    const [resumed] = await again.waitFor(1 + expected.length);
    assert.deepEqual(resumed, { webSocketId: carolSocket, resume: { status: 'resumed', sequence: cursor } });
    assert.deepEqual(
      again.frames.slice(1).map((f) => [f.sequence, f.event]),
      expected.map((f) => [f.sequence, f.event]),
    );

    again.ws.close();
    await again.closed;
    await voice.close();
    await supervisor.close();
  });
});
