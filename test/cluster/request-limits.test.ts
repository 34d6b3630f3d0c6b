import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Cluster, type ClusterNode, clusterEnv, startClusterNodes } from '../helpers/cluster.js';
import { firstAnswers, grant, heldRequest, keptHeld, send } from '../helpers/raw-http.js';
import { untilStatus } from '../helpers/in-flight.js';
import { basic } from '../helpers/server.js';

/**
 * The in-flight limits hold over the cluster (docs/cluster.md, "Security state"), attacked as
 * issue 16 describes: one client spreads requests it holds in flight (bodies that never finish)
 * over three node processes; once the cluster-wide count reaches `--limit-per-client`, every
 * node refuses it with the single node's 503, while another principal is served. The same for
 * the token grant's per-address pool (`--limit-anonymous-per-ip`), and for a burst sent to every
 * node at once (admitted on several nodes before they hear of each other, then taken back).
 */
const env = await clusterEnv();

const PER_CLIENT = 3;
const ANONYMOUS = 2;
const CLIENT = '127.0.0.3';

describe('in-flight limits over three nodes', { skip: env.skip }, () => {
  let cluster: Cluster;
  let nodes: ClusterNode[];
  before(async () => {
    // prettier-ignore
    cluster = await startClusterNodes({
      nodes: 3,
      args: [
        '--limit-per-client', String(PER_CLIENT), '--limit-anonymous-per-ip', String(ANONYMOUS),
        '--busy-delay-ms', '300',
      ],
    });
    nodes = cluster.nodes;
  });
  after(() => cluster?.stop());

  const voice = (node: ClusterNode, user: string) =>
    send(node, '/api/v1', { from: CLIENT, headers: { authorization: basic(`${user}:1234`) } });

  test('one client’s requests held on three nodes use its whole allowance on every node', async () => {
    const auth = { authorization: basic('101@1001:1234') };
    // One request held on each node: the cluster's count is the limit, no node's is.
    const held = nodes.map((n) =>
      keptHeld(() => heldRequest(n, '/api/v1/calls', { from: CLIENT, headers: auth })),
    );
    try {
      for (const n of nodes) {
        const r = await untilStatus(503, () => voice(n, '101@1001'));
        assert.equal(r.status, 503, `${n.nodeId} answered ${r.status}`);
        assert.ok(Number(r.headers['retry-after']) >= 1);
        assert.equal(JSON.parse(r.body).errorCode, 'BUSY');
      }
      // Another principal from the same address is served on every node (by the tenant's owner).
      for (const n of nodes) assert.equal((await voice(n, '102@1001')).status, 200, n.nodeId);
      // One slot back: the client is served on every node again. A request a node forwards to the
      // tenant's owner counts once (were it counted on both, the forwarding nodes would refuse it).
      held[0]!.abort();
      for (const n of nodes) {
        const r = await untilStatus(200, () => voice(n, '101@1001'));
        assert.equal(r.status, 200, `${n.nodeId} answered ${r.status}`);
      }
    } finally {
      for (const h of held) h.abort();
    }
  });

  test('token grants held on two nodes use the address’s anonymous allowance on the third', async () => {
    const from = '127.0.0.4';
    const held = nodes
      .slice(0, ANONYMOUS)
      .map((n) => keptHeld(() => heldRequest(n, '/6/v2/api/oauth/token', { from })));
    try {
      const r = await untilStatus(503, () => grant(nodes[2]!, '100@1001', '1234', { from }));
      assert.equal(r.status, 503);
      assert.deepEqual(JSON.parse(r.body), { success: false, reason: 'Service Unavailable' });
      // Another address is not affected.
      for (const n of nodes)
        assert.equal((await grant(n, '100@1001', '1234', { from: '127.0.0.5' })).status, 200);
    } finally {
      for (const h of held) h.abort();
    }
  });

  test('a burst sent to every node at once keeps the limit across the cluster', async () => {
    const from = '127.0.0.6';
    const held = Array.from({ length: 30 }, (_, i) =>
      heldRequest(nodes[i % nodes.length]!, '/6/v2/api/oauth/token', { from }),
    );
    try {
      // Slots given on several nodes at once are taken back: all but ANONYMOUS are refused.
      const refused = await firstAnswers(
        held.map((h) => h.answer),
        30 - ANONYMOUS,
        20_000,
      );
      assert.equal(refused.length, 30 - ANONYMOUS);
      assert.ok(
        refused.every((s) => s === 503),
        `answers: ${[...new Set(refused)]}`,
      );
      // And the remaining ones still hold the allowance: a further grant is refused too.
      const more = await grant(nodes[0]!, '100@1001', '1234', { from });
      assert.equal(more.status, 503);
    } finally {
      for (const h of held) h.abort();
    }
  });
});
