import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { suiteServer } from '../../helpers/server.js';
import { ADMIN, BOB } from '../voice/voice-helpers.js';

interface ClusterBody {
  clustered: boolean;
  answeredBy: string;
  clusterName?: string;
  nodes: {
    id: string;
    alive: boolean;
    url: string;
    pid: number;
    startedAt: string;
    lastHeartbeat: string;
    tenants: unknown[];
  }[];
  unowned: number[];
}

describe('GET /cluster on a standalone server', () => {
  const current = suiteServer({ nodeId: 'solo' });

  test('needs Basic credentials of a telco administrator', async () => {
    const s = current();
    const anonymous = await s.fetch('/cluster');
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic realm="cluster"/);
    assert.equal((await s.fetch('/cluster', { auth: BOB })).status, 401, 'a tenant user may not');
    assert.equal(
      (await s.fetch('/cluster', { auth: 'operator:operator' })).status,
      401,
      'a scoped telco user may not',
    );
    assert.equal((await s.fetch('/cluster', { auth: 'admin:wrong' })).status, 401);
  });

  test('one node, alive, holding every tenant under epoch 0', async () => {
    const s = current();
    const r = await s.fetch('/cluster', { auth: ADMIN });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('cache-control'), 'no-store');
    const body = (await r.json()) as ClusterBody;
    assert.equal(body.clustered, false);
    assert.equal(body.answeredBy, 'solo');
    assert.equal(body.clusterName, undefined);
    assert.equal(body.nodes.length, 1);
    const node = body.nodes[0]!;
    assert.equal(node.id, 'solo');
    assert.equal(node.alive, true);
    assert.equal(node.url, s.httpUrl);
    assert.equal(node.pid, process.pid);
    assert.ok(!Number.isNaN(Date.parse(node.startedAt)) && !Number.isNaN(Date.parse(node.lastHeartbeat)));
    assert.deepEqual(node.tenants, [
      { tenantId: 1001, epoch: 0, expiresAt: null },
      { tenantId: 1002, epoch: 0, expiresAt: null },
    ]);
    assert.deepEqual(body.unowned, []);
  });

  test('the membership of a standalone server owns every tenant under epoch 0', () => {
    const m = current().runtime.membership;
    assert.equal(m.clustered, false);
    assert.equal(m.nodeId, 'solo');
    assert.ok(m.owns(1001) && m.owns(4242));
    assert.equal(m.epochOf(1002), 0);
  });
});
