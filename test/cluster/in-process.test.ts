/**
 * Cluster nodes inside this process (startServer): what the composition gives the cluster's
 * other pieces (`runtime.cluster`), and rebalancing that never moves a tenant with a live call.
 * Rendezvous over n1, n2 prefers n2 for both demo tenants (1001 and 1002).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { preferredNode } from '../../src/cluster/rendezvous.js';
import type { OwnershipChange } from '../../src/core/cluster.js';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';

const env = await clusterEnv();
const TTL = 5000;

async function until(what: string, ms: number, cond: () => boolean): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out (${ms} ms): ${what}`);
    await sleep(50);
  }
}

describe('in-process cluster nodes', { skip: env.skip }, () => {
  let cluster: Cluster;
  let n1: ClusterNode;
  before(async () => {
    cluster = await startClusterNodes({ nodes: 1, inProcess: true, leaseTtlMs: TTL });
    n1 = cluster.nodes[0]!;
  });
  after(async () => cluster?.stop());

  it('the runtime carries the cluster: NATS, subject prefix, stream name, node id, membership', async () => {
    const rt = n1.server!.runtime;
    const c = rt.cluster!;
    assert.equal(c.nodeId, 'n1');
    assert.equal(c.prefix, `sb.${cluster.clusterName}`);
    assert.equal(c.streamName, `SB_${cluster.clusterName}_EVENTS`);
    assert.equal(c.leaseTtlMs, TTL);
    assert.equal(rt.membership, c.membership);
    assert.equal(rt.membership.clustered, true);
    assert.ok(c.natsConnected());
    // The connection works: a request to a subject under the prefix comes back.
    const sub = c.nats.subscribe(`${c.prefix}.test.echo`, { callback: (_e, m) => void m.respond(m.data) });
    const reply = await c.nats.request(`${c.prefix}.test.echo`, 'ping', { timeout: 2000 });
    assert.equal(reply.string(), 'ping');
    sub.unsubscribe();
    assert.ok(rt.membership.owns(1001) && rt.membership.owns(1002));
    assert.equal(rt.membership.epochOf(1001), 1);
  });

  it('a joining node gets its idle tenants; a tenant with a live call stays until the call ends', async () => {
    assert.equal(preferredNode(1001, ['n1', 'n2']), 'n2');
    assert.equal(preferredNode(1002, ['n1', 'n2']), 'n2');
    const call = await n1.fetch('/sim/v1/pstn/calls', {
      method: 'POST',
      auth: 'admin:admin',
      json: { from: '+15559871234', to: '+15555550100' },
    });
    assert.equal(call.status, 201);
    const { pstnCallId } = (await call.json()) as { pstnCallId: string };
    const m1 = n1.server!.runtime.membership;
    assert.ok(n1.server!.runtime.switch.hasLiveCalls(1001));

    const n2 = await cluster.addNode();
    const m2 = n2.server!.runtime.membership;
    const gained: OwnershipChange[] = [];
    m2.onChange((c) => void gained.push(c));
    await until('1002 on n2', 3 * TTL, () => m2.owns(1002) && !m1.owns(1002));
    await sleep(TTL);
    assert.ok(m1.owns(1001), 'the tenant with a live call stayed on n1');
    assert.ok(!m2.owns(1001));
    assert.equal(m2.ownerOf(1001), 'n1');

    const hangup = await n1.fetch(`/sim/v1/pstn/calls/${pstnCallId}/hangup`, {
      method: 'POST',
      auth: 'admin:admin',
    });
    assert.equal(hangup.status, 204);
    await until('1001 on n2', 3 * TTL, () => m2.owns(1001) && !m1.owns(1001));
    // owns() turns true at once; the listeners hear it next, after the tenant's earlier announcements.
    await until('1001 announced on n2', TTL, () => gained.some((c) => c.tenantId === 1001));
    const g = gained.find((c) => c.tenantId === 1001)!;
    assert.deepEqual([g.owned, g.epoch, g.previousOwner], [true, 2, 'n1']);
    // n1 learns the new owner (nudged over NATS by n2, at worst at its next tick).
    await until('n1 sees n2 own 1001', TTL / 2, () => m1.ownerOf(1001) === 'n2');
  });

  it('a crashed node (its tick stopped, nothing released) loses its tenants to the other within TTL + 1 s', async () => {
    const n2 = cluster.nodes[1]!;
    const m1 = n1.server!.runtime.membership;
    await n2.kill();
    const t0 = performance.now();
    await until('both on n1', TTL + 3000, () => m1.owns(1001) && m1.owns(1002));
    assert.ok(performance.now() - t0 <= TTL + 1000, `took ${Math.round(performance.now() - t0)} ms`);
    assert.equal(m1.epochOf(1001), 3);
  });
});
