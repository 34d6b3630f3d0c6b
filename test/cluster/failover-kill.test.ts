/**
 * Two real nodes (child processes) on one PostgreSQL database and NATS, leases as the cluster
 * runs them: the owner of tenant 1001 is killed with a live call and a caller waiting in a queue;
 * the other node takes the tenant within the lease TTL + 1 s, the call's legs end with "node lost"
 * on a socket of the surviving node, its record is in the contact-center API there, and the
 * waiting caller is there too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openEventSocket } from '../api/ccs/cc-client.js';
import { openSocket } from '../api/voice/voice-helpers.js';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import type { TestServer } from '../helpers/server.js';
import { openDatabase } from '../../src/store/database.js';
import { ccToken, eventually, request } from './failover-helpers.js';

const env = await clusterEnv();
const TTL = 2000;
const ALICE = '100@1001:1234';
const BOB = '101@1001:1234';
const ADMIN = 'admin:admin';

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

  it('the survivor takes the tenant; the cut call ends with "node lost" there; the waiting caller waits on', async () => {
    const first = await eventually(() => ownerOf(cluster.nodes[0]!, 1001), 'an owner of 1001', 20_000);
    const owner = cluster.nodes.find((n) => n.nodeId === first.id)!;
    const survivor = cluster.nodes.find((n) => n !== owner)!;
    const at = (path: string, method = 'GET', opts: { auth?: string; json?: unknown } = {}) =>
      request(survivor.httpUrl, method, path, opts);

    // A voice subscriber and a contact-center supervisor on the survivor.
    const voice = await openSocket({ wsUrl: survivor.wsUrl } as TestServer, ALICE);
    const set = await at(`/api/v1/subscriptions/ws/${voice.id}/subscriptionsets`, 'POST', { auth: ALICE });
    assert.equal(set.status, 200);
    const calls = await at(set.body._links['v1:callEventSubscriptions'].href, 'PUT', {
      auth: ALICE,
      json: { eventAccounts: ['ALL_USERS@1001'] },
    });
    assert.equal(calls.status, 200);
    const acme = await ccToken(survivor.httpUrl, '100@1001');
    const supervisor = await openEventSocket({ httpUrl: survivor.httpUrl } as TestServer, acme.slice(7));
    assert.equal(supervisor.answer.success, true);

    // Through the survivor (forwarded to the owner): Bob talks to Carol; an outside caller waits in
    // Sales, ringing Dan.
    const made = await at('/api/v1/calls', 'POST', { auth: BOB, json: { from: '101@1001', to: '102' } });
    assert.equal(made.status, 201);
    const { smdrCallId } = made.body as { smdrCallId: string };
    assert.equal(
      (await at('/sim/v1/devices/ph1001-102/answer', 'POST', { auth: ADMIN, json: {} })).status,
      200,
    );
    const inbound = await at('/sim/v1/pstn/calls', 'POST', {
      auth: ADMIN,
      json: { from: '+15551230001', to: '+15555550150', callerName: 'Pat Caller' },
    });
    assert.equal(inbound.status, 201);

    const db = await openDatabase({ kind: 'postgres', url: cluster.databaseUrl });
    try {
      await eventually(
        async () => (await db.kysely.selectFrom('live_calls').select('smdr_call_id').execute()).length === 2,
        "the owner's live calls written",
      );
    } finally {
      await db.close();
    }

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
    assert.ok(next.epoch > first.epoch);
    const takenMs = performance.now() - killedAt;
    assert.ok(takenMs <= TTL + 1000 + 2000, `taken over in ${Math.round(takenMs)} ms`);

    // The legs end with the reason, on the survivor's socket.
    const lost = (f: Record<string, unknown>) => f.event === 'end' && f.endReason === 'node lost';
    const ends = await eventually(() => {
      const e = voice.frames.filter((f) => lost(f) && String(f.smdrCallId) === smdrCallId);
      return Promise.resolve(e.length >= 2 ? e : undefined);
    }, 'the end events with node lost');
    assert.deepEqual(ends.map((e) => e.observedParty).sort(), ['101@1001', '102@1001']);
    const ring = voice.frames.find((f) => lost(f) && f.observedParty === '103@1001');
    assert.ok(ring, "the offer ringing Dan's phone on the dead node ended too");

    // The record on the survivor's contact-center API.
    const record = await eventually(async () => {
      const r = await at(`/6/v2/api/calls/${smdrCallId}`, 'GET', { auth: acme });
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'the finished record');
    assert.equal(record.call_details.at(-1).event, 'Disconnected (node lost)');

    // The waiting caller is on the survivor, offered again there.
    const state = await at('/sim/v1/state', 'GET', { auth: ADMIN });
    assert.ok(
      state.body.pstnCalls.some((p: { pstnCallId: string }) => p.pstnCallId === inbound.body.pstnCallId),
    );
    await supervisor.next((f) => f.event === 'call_offered');

    await voice.close();
    await supervisor.close();
  });
});
