/**
 * Three real nodes (child processes) on one fresh PostgreSQL database and NATS: every node shows
 * the same cluster in GET /cluster, every tenant owned once; kill -9 of a node and its tenants
 * are owned by the others within the lease TTL + 1 s: each new grant, by the database's clock,
 * within a second of the dead node's lease running out.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';

const env = await clusterEnv();
const TTL = 5000;

interface View {
  clustered: boolean;
  clusterName: string;
  answeredBy: string;
  nodes: { id: string; alive: boolean; url: string | null; tenants: { tenantId: number; epoch: number }[] }[];
  unowned: number[];
  moving: { tenantId: number; owner: string; preferred: string | null }[];
  settled: boolean;
}

async function view(node: ClusterNode): Promise<View> {
  const r = await node.fetch('/cluster', { auth: 'admin:admin' });
  assert.equal(r.status, 200);
  return (await r.json()) as View;
}

/** tenant -> owner, from the live nodes of a view. */
const owners = (v: View) =>
  new Map(v.nodes.filter((n) => n.alive).flatMap((n) => n.tenants.map((t) => [t.tenantId, n.id] as const)));

async function poll<T>(what: string, ms: number, fn: () => Promise<T | undefined>): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined) return v;
    if (performance.now() > end) throw new Error(`timed out (${ms} ms): ${what}`);
    await sleep(100);
  }
}

describe('a cluster of three node processes', { skip: env.skip }, () => {
  let cluster: Cluster;
  before(async () => {
    cluster = await startClusterNodes({ nodes: 3, extraTenants: 10, leaseTtlMs: TTL });
  });
  after(async () => cluster?.stop());

  it('GET /cluster needs a telco administrator', async () => {
    const n = cluster.nodes[0]!;
    assert.equal((await n.fetch('/cluster')).status, 401);
    assert.equal((await n.fetch('/cluster', { auth: 'admin:wrong' })).status, 401);
    assert.equal((await n.fetch('/cluster', { auth: '100@1001:1234' })).status, 401);
  });

  it('every node shows the same three nodes, and every tenant owned by exactly one', async () => {
    const ids = cluster.nodes.map((n) => n.nodeId).sort();
    const views = await poll('settled views', 20_000, async () => {
      const vs = await Promise.all(cluster.nodes.map(view));
      const settled = vs.every(
        (v) =>
          v.settled &&
          v.nodes.filter((n) => n.alive).length === 3 &&
          v.nodes.every((n) => n.tenants.length > 0) &&
          JSON.stringify([...owners(v)].sort()) === JSON.stringify([...owners(vs[0]!)].sort()),
      );
      return settled ? vs : undefined;
    });
    for (const [i, v] of views.entries()) {
      assert.equal(v.clustered, true);
      assert.equal(v.clusterName, cluster.clusterName);
      assert.equal(v.answeredBy, cluster.nodes[i]!.nodeId);
      assert.deepEqual(v.nodes.map((n) => n.id).sort(), ids);
      assert.ok(v.nodes.every((n) => n.url?.startsWith('http://')));
      const all = v.nodes.flatMap((n) => n.tenants.map((t) => t.tenantId));
      assert.equal(all.length, 12, 'the 2 demo tenants and 10 more');
      assert.equal(new Set(all).size, all.length, 'no tenant owned twice');
      assert.deepEqual([v.unowned, v.moving], [[], []], 'settled: none unowned, none moving');
    }
  });

  it('kill -9 of a node: within TTL + 1 s its tenants are owned by the others, under new epochs', async (t) => {
    const before = await view(cluster.nodes[0]!);
    const victimView = [...before.nodes].sort((a, b) => b.tenants.length - a.tenants.length)[0]!;
    const victim = cluster.nodes.find((n) => n.nodeId === victimView.id)!;
    const survivor = cluster.nodes.find((n) => n !== victim)!;
    const lost = new Map(victimView.tenants.map((t) => [t.tenantId, t.epoch]));
    assert.ok(lost.size > 0);

    await victim.kill('SIGKILL');
    const t0 = performance.now();
    // Its leases as it left them: it renews them no more.
    const db = await openDatabase({ kind: 'postgres', url: cluster.databaseUrl });
    t.after(() => db.close());
    const leases = () =>
      db.kysely
        .selectFrom('tenant_leases')
        .selectAll()
        .where('tenant_id', 'in', [...lost.keys()])
        .execute();
    const ranOut = new Map((await leases()).map((l) => [Number(l.tenant_id), Number(l.expires_at)]));
    const after = await poll('takeover', TTL + 5000, async () => {
      const v = await view(survivor);
      const o = owners(v);
      return [...lost.keys()].every((t) => o.has(t) && o.get(t) !== victim.nodeId) ? v : undefined;
    });
    const took = performance.now() - t0;
    t.diagnostic(`${lost.size} tenants taken over ${Math.round(took)} ms after kill -9 (TTL ${TTL} ms)`);
    // Within TTL + 1 s of the kill: the dead node's lease lasted at most TTL after it (its last
    // renewal came before), and the new grant came within a second of it running out. Both times
    // are the database's, so this does not depend on when this process heard of the takeover.
    for (const l of await leases()) {
      const late = Number(l.granted_at) - ranOut.get(Number(l.tenant_id))!;
      assert.ok(
        late >= 0 && late <= 1000,
        `tenant ${l.tenant_id} granted to ${l.owner_node} ${late} ms after the dead node's lease ran out`,
      );
    }
    for (const n of after.nodes.filter((x) => x.alive)) {
      for (const x of n.tenants) if (lost.has(x.tenantId)) assert.ok(x.epoch > lost.get(x.tenantId)!);
    }
    assert.equal(after.unowned.length, 0);
    // The dead node is shown, not alive, holding nothing.
    const dead = await poll('the dead node shown as such', TTL, async () => {
      const d = (await view(survivor)).nodes.find((n) => n.id === victim.nodeId);
      return d && !d.alive ? d : undefined;
    });
    assert.deepEqual(dead.tenants, []);
  });
});
