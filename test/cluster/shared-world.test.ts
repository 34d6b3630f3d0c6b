import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ClusterNode, clusterSkip, suiteCluster } from '../helpers/cluster-nodes.js';
import { ADMIN, ALICE, BOB, GRACE } from '../api/voice/voice-helpers.js';

/**
 * One virtual clock and one reset for the whole cluster (docs/cluster.md § Clock): node a owns
 * tenant 1001, node b tenant 1002.
 */
const skip = await clusterSkip();

describe('the simulator’s clock and reset are the cluster’s', { skip }, () => {
  let a: ClusterNode;
  let b: ClusterNode;
  const cluster = suiteCluster((c) => ([a, b] = c.nodes));

  const sim = async (node: ClusterNode, path: string, json?: unknown) => {
    const r = await node.fetch(`/sim/v1${path}`, {
      auth: ADMIN,
      ...(json !== undefined ? { method: 'POST', json } : {}),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : undefined };
  };
  const callState = async (node: ClusterNode, auth: string, callId: string) =>
    ((await (await node.fetch(`/api/v1/calls/${callId}`, { auth })).json()) as { callState: string })
      .callState;

  test('advancing on one node moves every node’s clock, and the owner’s timers fire', async () => {
    const start = (await sim(a, '/clock')).body.now as number;
    // Bob's phone (tenant 1001, on a) calls an outside number that answers after 2 s.
    const dial = await sim(b, '/devices/ph1001-101/dial', { to: '95550001111' });
    assert.equal(dial.status, 201);
    const callId = dial.body.call.callObserverId as string;
    assert.ok(a.runtime.switch.leg(callId), 'the call runs on a');
    assert.notEqual(await callState(b, BOB, callId), 'connected');

    const moved = await sim(b, '/clock/advance', { ms: 2500 });
    assert.equal(moved.status, 200);
    assert.equal(moved.body.now, start + 2500);
    for (const node of [a, b]) assert.deepEqual((await sim(node, '/clock')).body, moved.body, node.name);
    assert.equal(await callState(b, BOB, callId), 'connected', 'the owner’s answer timer fired');

    // And from the other side.
    const again = await sim(a, '/clock/advance', { ms: 1000 });
    assert.equal((await sim(b, '/clock')).body.now, again.body.now);
  });

  test('a node that joins takes the cluster’s time', async () => {
    await sim(a, '/clock/advance', { ms: 7000 });
    const now = (await sim(a, '/clock')).body.now as number;
    const c = await cluster().addNode('c');
    try {
      assert.equal(c.runtime.clock.now(), now);
      const moved = await sim(c, '/clock/advance', { ms: 500 });
      for (const node of [a, b]) assert.equal(node.runtime.clock.now(), moved.body.now, node.name);
    } finally {
      await cluster().stopNode('c');
    }
  });

  test('the outside world is every node’s: its numbers, and its calls wherever they run', async () => {
    assert.equal((await a.fetch('/sim/v1/reset', { auth: ADMIN, method: 'POST' })).status, 204);
    const set = await b.fetch('/sim/v1/pstn/numbers/5550001111', {
      auth: ADMIN,
      method: 'PUT',
      json: { answer: 'manual' },
    });
    assert.equal(set.status, 200);
    for (const node of [a, b]) {
      assert.deepEqual((await sim(node, '/pstn/numbers')).body.numbers, [
        { number: '+15550001111', answer: 'manual' },
      ]);
    }
    // Tenant 1001's phone calls out: the outside leg is on a; asked of b, it is found.
    const dial = await sim(b, '/devices/ph1001-101/dial', { to: '95550001111' });
    assert.equal(dial.status, 201);
    await sim(b, '/clock/advance', { ms: 60_000 });
    const [out] = (await sim(a, '/pstn/calls')).body.calls as { pstnCallId: string; state: string }[];
    assert.equal(out.state, 'ringing', 'manual: still ringing after a minute');
    const onB = await sim(b, `/pstn/calls/${out.pstnCallId}`);
    assert.deepEqual(onB, await sim(a, `/pstn/calls/${out.pstnCallId}`));
    assert.equal((await sim(b, `/pstn/calls/${out.pstnCallId}/answer`, {})).status, 204);
    assert.equal((await sim(b, `/pstn/calls/${out.pstnCallId}`)).body.state, 'connected');
    assert.equal((await sim(b, '/pstn/calls/123/answer', {})).body.error.code, 'PSTN_CALL_NOT_FOUND');
  });

  test('a reset through one node resets every node', async () => {
    const onA = await a.fetch('/api/v1/calls', {
      auth: BOB,
      method: 'POST',
      json: { from: '101@1001', to: '102' },
    });
    const onB = await a.fetch('/api/v1/calls', {
      auth: GRACE,
      method: 'POST',
      json: { from: '200@1002', to: '201' },
    });
    assert.equal(onA.status, 201);
    assert.equal(onB.status, 201);
    assert.equal(b.runtime.switch.liveLegs(1002).length > 0, true, 'tenant 1002’s call runs on b');
    const user = await b.fetch('/api/v1/tenants/1001/users', {
      auth: ALICE,
      method: 'POST',
      json: { extension: '171', firstName: 'Rae', pin: '2468' },
    });
    assert.equal(user.status, 201);
    await sim(a, '/clock/advance', { ms: 60_000 });

    const reset = await b.fetch('/sim/v1/reset', { auth: ADMIN, method: 'POST' });
    assert.equal(reset.status, 204);
    const clocks = await Promise.all([a, b].map(async (node) => (await sim(node, '/clock')).body.now));
    assert.equal(clocks[0], clocks[1]);
    for (const node of [a, b]) {
      assert.equal(node.runtime.switch.liveLegs(1001).length, 0, `no call of 1001 on ${node.name}`);
      assert.equal(node.runtime.switch.liveLegs(1002).length, 0, `no call of 1002 on ${node.name}`);
      assert.equal(
        node.runtime.directory.extension(1001, '171'),
        undefined,
        `the world is the demo on ${node.name}`,
      );
      assert.equal(node.runtime.clock.now(), clocks[0]);
    }
    // Still one platform afterwards.
    const after = await b.fetch('/api/v1/calls', {
      auth: BOB,
      method: 'POST',
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(after.status, 201);
  });
});
