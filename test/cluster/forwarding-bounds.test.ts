import assert from 'node:assert/strict';
import { beforeEach, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ClusterNode, clusterSkip, startCluster, suiteCluster } from '../helpers/cluster-nodes.js';
import { basic } from '../helpers/server.js';
import { BOB, GRACE } from '../api/voice/voice-helpers.js';

/**
 * A forwarded request never hangs (docs/cluster.md § Forwarding): an owner that is gone, silent
 * or not known yet is waited for within bounds, then the API's own 503.
 */
const skip = await clusterSkip();

const SETTLE_MS = 1500;
const TIMEOUT_MS = 1500;

describe('forwarding within bounds', { skip }, () => {
  let a: ClusterNode;
  let b: ClusterNode;
  const cluster = suiteCluster(
    async (c) => {
      [a, b] = c.nodes;
      // A server's first requests are slow (compiling validators): the bounds are judged warm.
      for (const [node, auth, from, to] of [
        [a, BOB, '101@1001', '102'],
        [b, GRACE, '200@1002', '201'],
      ] as const) {
        const made = (await (await call(node, auth, from, to)).json()) as { callId: string };
        await node.fetch(`/api/v1/calls/${made.callId}`, {
          auth,
          method: 'POST',
          json: { callRequest: 'hangupCall' },
        });
      }
    },
    { settleMs: SETTLE_MS, timeoutMs: TIMEOUT_MS },
  );
  beforeEach(async () => {
    await cluster().assign(1001, 'a');
    await cluster().assign(1002, 'b');
  });

  const call = (node: ClusterNode, auth = BOB, from = '101@1001', to = '102') =>
    node.fetch('/api/v1/calls', { auth, method: 'POST', json: { from, to } });

  test('an owner that is not known yet is waited for', async () => {
    await b.membership.assign(1001, 'nobody-yet');
    setTimeout(() => void b.membership.assign(1001, 'a'), 300);
    const started = Date.now();
    const r = await call(b);
    assert.equal(r.status, 201, await r.text());
    assert.ok(Date.now() - started >= 250, 'it waited for the owner');
  });

  test('an owner that moved is followed; one that moved here runs the request here', async () => {
    // a no longer owns 1001 and refuses it; b learns a moment later who does.
    await a.membership.assign(1001, 'b');
    setTimeout(() => void b.membership.assign(1001, 'b'), 300);
    const r = await call(b);
    assert.equal(r.status, 201);
    const { callId } = (await r.json()) as { callId: string };
    assert.ok(b.runtime.switch.leg(callId), 'b became the owner and ran it');
    assert.equal(a.runtime.switch.leg(callId), undefined);
  });

  test('an owner that lost the tenant while the request waited for its takeover: the new owner runs it', async () => {
    // b takes 1001 over, held; a request forwarded there waits for the takeover, and the tenant
    // moves on to a meanwhile. b did not run it and says so, so a runs it instead of a 503.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const stop = b.membership.onChange(async (c) => {
      if (c.owned && c.tenantId === 1001) await held;
    });
    const takingOver = b.membership.takingOver;
    let waiting!: () => void;
    const waitedOn = new Promise<void>((r) => (waiting = r));
    b.membership.takingOver = (t) => {
      const taking = takingOver.call(b.membership, t);
      if (t === 1001 && taking) waiting();
      return taking;
    };
    try {
      await a.membership.assign(1001, 'b');
      const gained = b.membership.assign(1001, 'b');
      const answer = call(a);
      await waitedOn;
      await b.membership.assign(1001, 'a');
      await a.membership.assign(1001, 'a');
      // b's takeover goes on a while yet (past the forwarding node's grace for a lost owner).
      setTimeout(release, 450);
      const r = await answer;
      await gained;
      assert.equal(r.status, 201, await r.clone().text());
      const { callId } = (await r.json()) as { callId: string };
      assert.ok(a.runtime.switch.leg(callId), 'the new owner ran it');
      assert.equal(b.runtime.switch.leg(callId), undefined);
    } finally {
      release();
      stop();
      b.membership.takingOver = takingOver;
    }
  });

  test('an owner that answers nothing: 503 after the time-out, in each API’s shape', async () => {
    const silent = await b.nats.subscribe(`${cluster().prefix}.node.mute.http`, { callback: () => {} });
    try {
      await b.membership.assign(1002, 'mute');
      await a.membership.assign(1002, 'mute');
      const started = Date.now();
      const r = await call(a, GRACE, '200@1002', '201');
      const took = Date.now() - started;
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal(r.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.equal(((await r.json()) as { errorCode: string }).errorCode, 'OWNER_TIMEOUT');
      assert.ok(took >= TIMEOUT_MS && took < TIMEOUT_MS + 1000, `answered after ${took} ms`);
    } finally {
      silent.unsubscribe();
    }
  });

  test('an owner that dies with the request in hand: 503 OWNER_LOST once its lease lapses, not after the time-out', async () => {
    // 'dying' takes the request and never answers; then its lease lapses (another owner appears).
    const dying = await b.nats.subscribe(`${cluster().prefix}.node.dying.http`, { callback: () => {} });
    try {
      await b.membership.assign(1002, 'dying');
      await a.membership.assign(1002, 'dying');
      setTimeout(() => void a.membership.assign(1002, 'successor'), 200);
      const r = await call(a, GRACE, '200@1002', '201');
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '1');
      assert.equal(((await r.json()) as { errorCode: string }).errorCode, 'OWNER_LOST');
    } finally {
      dying.unsubscribe();
    }
  });

  test('an owner that is gone: 503 once the ownership did not settle, in each API’s shape', async () => {
    await b.membership.assign(1001, 'gone');
    const started = Date.now();
    const voice = await call(b);
    const took = Date.now() - started;
    assert.equal(voice.status, 503);
    assert.equal(voice.headers.get('retry-after'), '1');
    assert.equal(((await voice.json()) as { errorCode: string }).errorCode, 'OWNER_UNAVAILABLE');
    assert.ok(took >= SETTLE_MS && took < SETTLE_MS + 1000, `answered after ${took} ms`);

    const sim = await b.fetch('/sim/v1/devices/ph1001-101', { auth: 'admin:admin' });
    assert.equal(sim.status, 503);
    assert.equal(sim.headers.get('retry-after'), '1');
    assert.equal(((await sim.json()) as { error: { code: string } }).error.code, 'OWNER_UNAVAILABLE');

    const grant = await b.fetch('/6/v2/api/oauth/token', {
      method: 'POST',
      json: { grant_type: 'password', username: '101@1001', password: '1234' },
    });
    assert.equal(grant.status, 200, 'the token grant concerns no tenant: it runs here');
    const { access_token } = (await grant.json()) as { access_token: string };
    const cc = await b.fetch('/6/v2/api/extensions', {
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.equal(cc.status, 503);
    assert.equal(cc.headers.get('retry-after'), '1');
    assert.deepEqual(await cc.json(), { success: false, reason: 'Service Unavailable' });
  });

  test('a node that stopped: its tenants’ requests answer 503 on the others, never hang', async () => {
    const gone = await startCluster(['x', 'y'], { 1001: 'x', 1002: 'y' }, {}, { settleMs: 500 });
    try {
      const [, y] = gone.nodes;
      await gone.stopNode('x');
      const started = Date.now();
      const r = await y.fetch('/api/v1/calls', { auth: BOB });
      assert.equal(r.status, 503);
      assert.ok(Date.now() - started < 2000);
      // Its own tenants are not affected.
      const own = await y.fetch('/api/v1/calls', { headers: { authorization: basic(GRACE) } });
      assert.equal(own.status, 200);
      await sleep(0);
    } finally {
      await gone.stop();
    }
  });
});
