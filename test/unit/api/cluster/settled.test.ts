/**
 * GET /cluster's `moving` and `settled` (docs/cluster.md § Seeing it): a tenant held by a node
 * other than the one placement prefers is moving; the cluster is settled when none is moving and
 * none is unowned. Rendered from the nodes' own placement rule (`placement`), as the route does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { render } from '../../../../src/api/cluster/plugin.js';
import { placement } from '../../../../src/cluster/lease-membership.js';
import type { NodeInfo } from '../../../../src/store/cluster-nodes.js';
import type { Lease } from '../../../../src/store/leases.js';

const NOW = 1_000_000;
const node = (nodeId: string, over: Partial<NodeInfo> = {}): NodeInfo => ({
  nodeId,
  url: null,
  host: 'h',
  pid: 1,
  slot: 0,
  ttlMs: 5000,
  eligible: true,
  startedAt: NOW - 10_000,
  heartbeatAt: NOW - 100,
  alive: true,
  protocol: 2,
  ...over,
});
const lease = (tenantId: number, owner: string, expiresAt = NOW + 4000): Lease =>
  ({ tenantId, owner, epoch: 1, expiresAt }) as Lease;

const TENANTS = [1001, 1002, 1003, 1004, 1005, 1006];

function view(nodes: NodeInfo[], leases: Lease[]) {
  return render({
    clustered: true,
    nodeId: 'a',
    now: NOW,
    nodes,
    leases,
    tenants: TENANTS,
    preferred: placement(nodes),
  });
}

describe('GET /cluster: moving and settled', () => {
  const nodes = [node('a'), node('b'), node('c')];
  const prefer = placement(nodes);
  const atHome = TENANTS.map((t) => lease(t, prefer(t)!));

  it('every tenant on its preferred node: settled, nothing moving', () => {
    const v = view(nodes, atHome);
    assert.deepEqual(v.moving, []);
    assert.equal(v.settled, true);
  });

  it('a tenant on another node is moving, to its preferred node', () => {
    const t = TENANTS[0]!;
    const elsewhere = ['a', 'b', 'c'].find((n) => n !== prefer(t))!;
    const v = view(nodes, [lease(t, elsewhere), ...atHome.slice(1)]);
    assert.deepEqual(v.moving, [{ tenantId: t, owner: elsewhere, preferred: prefer(t) }]);
    assert.equal(v.settled, false);
  });

  it('an unowned tenant (lease lapsed) is not settled, and not moving', () => {
    const v = view(nodes, [lease(TENANTS[0]!, prefer(TENANTS[0]!)!, NOW - 1), ...atHome.slice(1)]);
    assert.deepEqual(v.unowned, [TENANTS[0]]);
    assert.deepEqual(v.moving, []);
    assert.equal(v.settled, false);
  });

  it('a node not accepting tenants (no NATS) is left out of the placement: its tenants move', () => {
    const held = TENANTS.find((t) => prefer(t) === 'c')!;
    const v = view([node('a'), node('b'), node('c', { eligible: false })], atHome);
    assert.ok(v.moving?.some((m) => m.tenantId === held && m.owner === 'c' && m.preferred !== 'c'));
    assert.equal(v.settled, false);
  });

  it('a standalone server shows neither', () => {
    const v = render({ clustered: false, nodeId: 'a', now: NOW, nodes, leases: [], tenants: TENANTS });
    assert.equal('moving' in v, false);
    assert.equal('settled' in v, false);
  });
});
