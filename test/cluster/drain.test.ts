/**
 * A node leaving gracefully (SIGTERM) cuts no call that ends within `--drain-ms`: it stops being
 * given tenants, hands each idle one over at once, and serves a tenant with a live call (its
 * requests forwarded to it from the other node) until the call ends, then hands that one over
 * too and stops. `/readyz` says it is draining meanwhile. Two real node processes.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import { ccToken, eventually, request } from './failover-helpers.js';

const env = await clusterEnv();
const BOB = '101@1001:1234';
const ADMIN = 'admin:admin';

interface View {
  nodes: { id: string; alive: boolean; tenants: { tenantId: number }[] }[];
  settled: boolean;
}
const view = async (n: ClusterNode) =>
  (await request(n.httpUrl, 'GET', '/cluster', { auth: ADMIN })).body as View;
const ownerOf = (v: View, tenantId: number) =>
  v.nodes.find((n) => n.alive && n.tenants.some((t) => t.tenantId === tenantId))?.id;

describe('a node leaving gracefully', { skip: env.skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterNodes({ nodes: 2, drainMs: 60_000 });
  });
  after(async () => cluster?.stop());

  it('hands a tenant with a live call over once the call ends, cutting nothing', async () => {
    const settled = await eventually(async () => {
      const v = await view(cluster.nodes[0]!);
      return v.settled && ownerOf(v, 1001) ? v : undefined;
    }, 'the cluster settled');
    const owner = cluster.nodes.find((n) => n.nodeId === ownerOf(settled, 1001))!;
    const other = cluster.nodes.find((n) => n !== owner)!;

    // A call of tenant 1001, made and answered through the other node (forwarded to the owner).
    const made = await request(other.httpUrl, 'POST', '/api/v1/calls', {
      auth: BOB,
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const { callId, smdrCallId } = made.body as { callId: string; smdrCallId: string };
    const answered = await request(other.httpUrl, 'POST', '/sim/v1/devices/ph1001-102/answer', {
      auth: ADMIN,
      json: {},
    });
    assert.equal(answered.status, 200);

    const t0 = performance.now();
    let stopped = false;
    const stopping = owner.stop().then(() => (stopped = true));
    const ready = await eventually(async () => {
      const r = await request(owner.httpUrl, 'GET', '/readyz').catch(() => undefined);
      return r?.status === 503 ? r : undefined;
    }, 'the leaving node says it is draining');
    assert.deepEqual(ready.body, { status: 'draining' });

    // Every idle tenant moves at once; 1001 stays, and its call goes on.
    await eventually(async () => {
      const v = await view(other);
      const idle = v.nodes.flatMap((n) => n.tenants.map((t) => t.tenantId)).filter((t) => t !== 1001);
      return idle.every((t) => ownerOf(v, t) === other.nodeId) ? v : undefined;
    }, 'the idle tenants on the other node');
    await sleep(1000);
    assert.equal(ownerOf(await view(other), 1001), owner.nodeId, 'the tenant with a call stays');
    assert.equal(stopped, false);
    const live = await request(other.httpUrl, 'GET', `/api/v1/calls/${callId}`, { auth: BOB });
    assert.equal(live.status, 200, 'the call is live, its requests forwarded to the leaving node');

    // The call ends; the tenant moves, and the node stops well before its drain time.
    const hangup = await request(other.httpUrl, 'POST', `/api/v1/calls/${callId}`, {
      auth: BOB,
      json: { callRequest: 'hangupCall' },
    });
    assert.ok(hangup.status < 300, JSON.stringify(hangup.body));
    await stopping;
    assert.ok(performance.now() - t0 < 30_000, 'stopped once its tenants were handed over');
    assert.equal(ownerOf(await view(other), 1001), other.nodeId);

    // The record says the call was hung up, not cut by a lost node.
    const token = await ccToken(other.httpUrl, '100@1001');
    const record = await eventually(async () => {
      const r = await request(other.httpUrl, 'GET', `/6/v2/api/calls/${smdrCallId}`, { auth: token });
      return r.status === 200 && r.body.type === undefined ? r.body : undefined;
    }, 'the record on the other node');
    const steps = (record.call_details as { event: string }[]).map((d) => d.event);
    assert.ok(!steps.some((e) => /node lost/.test(e)), steps.join(', '));
    assert.equal(record.outcome, 'Answered');
  });
});
