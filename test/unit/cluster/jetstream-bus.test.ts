import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { PlatformEvent } from '../../../src/api/platform-events.js';
import type { PresenceEvent } from '../../../src/switch/types.js';
import {
  clusterUnavailable,
  cleanUp,
  natsConnection,
  testBus,
  uniqueClusterName,
} from '../../helpers/cluster-events.js';
import { NATS_URL } from '../../helpers/cluster-engines.js';
import { CuttableProxy } from '../../helpers/cuttable-proxy.js';
import { StaticMembership } from '../../helpers/static-membership.js';

const why = await clusterUnavailable();

const presence = (tenantId: number, i: number): PresenceEvent => ({
  type: 'presence',
  name: i % 2 ? 'dndOn' : 'dndOff',
  tenantId,
  observed: `${i}@${tenantId}`,
  at: 1_767_600_000_000 + i,
});

const device = (tenantId: number, deviceId: string): PlatformEvent => ({
  type: 'device',
  tenantId,
  deviceId,
  registered: true,
  at: 1_767_600_000_000,
});
const phoneOf = (e: PlatformEvent) => (e.type === 'device' ? e.deviceId : e.type);

/** Collects what a bus hands its subscribers: each event with its sequence. */
function collect(bus: { subscribe(h: (e: PlatformEvent, seq?: number) => void): () => void }) {
  const got: { e: PlatformEvent; seq: number }[] = [];
  let waiters: (() => void)[] = [];
  bus.subscribe((e, seq) => {
    got.push({ e, seq: seq! });
    for (const w of waiters) w();
  });
  return {
    got,
    until(n: number, ms = 5_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (got.length < n) return;
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
          resolve();
        };
        const timer = setTimeout(() => reject(new Error(`${got.length} of ${n} events arrived`)), ms);
        waiters.push(check);
        check();
      });
    },
  };
}

async function twoNodes(
  clusterName = uniqueClusterName(),
  retention?: { perTenantEvents: number; resumeGraceMs: number },
  retentionOfB = retention,
) {
  const a = new StaticMembership('a');
  const b = new StaticMembership('b');
  for (const m of [a, b]) {
    await m.assign(1001, 'a');
    await m.assign(1002, 'b');
    await m.assign(1003, 'a');
  }
  const busA = await testBus({ clusterName, membership: a, ...(retention ? { retention } : {}) });
  const busB = await testBus({
    clusterName,
    membership: b,
    ...(retentionOfB ? { retention: retentionOfB } : {}),
  });
  return { a: busA, b: busB, clusterName, memberships: { a, b } };
}

describe('JetStream event bus', { skip: why }, () => {
  after(cleanUp);

  test('every node gets every tenant’s events, in one stream order, each tenant’s in publish order', async () => {
    const { a, b } = await twoNodes();
    const onA = collect(a);
    const onB = collect(b);
    const n = 300;
    // Three tenants published concurrently from two owners, interleaved.
    for (let i = 0; i < n; i++) {
      a.publish(presence(1001, i));
      b.publish(presence(1002, i));
      a.publish(presence(1003, i));
    }
    await Promise.all([onA.until(3 * n), onB.until(3 * n)]);
    const view = (c: typeof onA) => c.got.map(({ e, seq }) => `${seq}:${(e as PresenceEvent).observed}`);
    assert.deepEqual(view(onA), view(onB), 'both nodes see the same events with the same sequences');
    const seqs = onA.got.map((x) => x.seq);
    assert.deepEqual(
      seqs,
      [...seqs].sort((x, y) => x - y),
    );
    assert.equal(new Set(seqs).size, seqs.length);
    for (const t of [1001, 1002, 1003]) {
      const order = onB.got.filter((x) => x.e.tenantId === t).map((x) => (x.e as PresenceEvent).observed);
      assert.deepEqual(
        order,
        Array.from({ length: n }, (_, i) => `${i}@${t}`),
        `tenant ${t} in publish order`,
      );
    }
    // Decoded as published (the two owners' first events may be stored in either order).
    const first = onA.got.find((x) => (x.e as PresenceEvent).observed === '0@1001');
    assert.deepEqual(first?.e, presence(1001, 0));
    await Promise.all([a.close(), b.close()]);
  });

  test('a node publishes only the tenants it owns', async () => {
    const { a, b } = await twoNodes();
    const onB = collect(b);
    a.publish(presence(1002, 1));
    a.publish(presence(1001, 2));
    await onB.until(1);
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      onB.got.map((x) => x.e),
      [presence(1001, 2)],
    );
    assert.equal(a.notOwned, 1);
    await Promise.all([a.close(), b.close()]);
  });

  test('subscribeOthers hands on what other nodes published, a previous owner’s too, never the node’s own', async () => {
    const { a, b, memberships } = await twoNodes();
    const others = { a: [] as string[], b: [] as string[] };
    a.subscribeOthers(['device'], phoneOf, (e) => others.a.push(phoneOf(e)));
    b.subscribeOthers(['device'], phoneOf, (e) => others.b.push(phoneOf(e)));
    const onA = collect(a);
    const onB = collect(b);
    a.publish(device(1001, 'ph-a'));
    b.publish(device(1002, 'ph-b'));
    a.publish(presence(1001, 1)); // not a type asked for
    // A handover seen by B first: B runs tenant 1003 now, while A, the previous owner, still
    // publishes its last event of it. B consumes it as a tenant it owns, and must still note it.
    await memberships.b.assign(1003, 'b');
    a.publish(device(1003, 'ph-moved'));
    await Promise.all([onA.until(4), onB.until(4)]);
    assert.deepEqual(others.a, ['ph-b'], 'A: only what B published');
    assert.deepEqual(others.b, ['ph-a', 'ph-moved'], 'B: what A published, the tenant it took over included');
    await Promise.all([a.close(), b.close()]);
  });

  test('subscribeOthers keeps, per key, the event of the newest lease: a previous owner’s late one is not handed on', async () => {
    const { a, b, memberships, clusterName } = await twoNodes();
    const c = await testBus({ clusterName, membership: new StaticMembership('c') }); // runs no tenant
    const others = { a: [] as string[], b: [] as string[], c: [] as string[] };
    for (const [name, bus] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const)
      bus.subscribeOthers(['device'], phoneOf, (e) => others[name].push(phoneOf(e)));
    const [onA, onB, onC] = [a, b, c].map(collect);
    // B runs tenant 1003 now, under a newer lease; A has not heard and still raises its events.
    await memberships.b.assign(1003, 'b');
    assert.ok(memberships.b.epochOf(1003)! > memberships.a.epochOf(1003)!);
    b.publish(device(1003, 'ph-x')); // the new owner's change of the phone
    await Promise.all([onA, onB, onC].map((o) => o!.until(1)));
    a.publish(device(1003, 'ph-x')); // the previous owner's, stored after it
    a.publish(device(1003, 'ph-y')); // a phone the new owner has not changed
    await Promise.all([onA, onB, onC].map((o) => o!.until(3)));
    assert.deepEqual(others.b, ['ph-y'], "B keeps its own change of ph-x, and notes A's of ph-y");
    assert.deepEqual(others.a, ['ph-x'], "A notes B's change of ph-x");
    assert.deepEqual(others.c, ['ph-x', 'ph-y'], "C, which runs neither, keeps B's change of ph-x too");
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  test('a node started later consumes from its start; caughtUp waits for what was published', async () => {
    const clusterName = uniqueClusterName();
    const { a } = await twoNodes(clusterName);
    for (let i = 0; i < 5; i++) a.publish(presence(1001, i));
    const m = new StaticMembership('c');
    await m.assign(1001, 'a');
    await new Promise((r) => setTimeout(r, 200));
    const c = await testBus({ clusterName, membership: m });
    const onC = collect(c);
    assert.ok(c.position() >= 5, `position ${c.position()}`);
    for (let i = 5; i < 50; i++) a.publish(presence(1001, i));
    await a.close();
    assert.equal(await c.caughtUp(), true);
    assert.deepEqual(
      onC.got.map((x) => (x.e as PresenceEvent).observed),
      Array.from({ length: 45 }, (_, i) => `${i + 5}@1001`),
    );
    await c.close();
  });

  test('caughtUp answers false, not an error, while NATS is away (a read waits for it at most its bound)', async () => {
    const proxy = new CuttableProxy(new URL(NATS_URL));
    const nc = await connect({
      servers: await proxy.start(),
      reconnectTimeWait: 50,
      maxReconnectAttempts: -1,
    });
    const m = new StaticMembership('cut');
    const bus = await testBus({ clusterName: uniqueClusterName(), membership: m, nc });
    try {
      assert.equal(await bus.caughtUp(), true);
      proxy.cut();
      assert.equal(await bus.caughtUp(), false);
    } finally {
      proxy.mend();
      await bus.close().catch(() => {});
      await nc.close();
      await proxy.close();
    }
  });

  test('a consumer lost on the server is made again from where it was: nothing lost or repeated', async () => {
    const { a, b } = await twoNodes();
    const onB = collect(b);
    for (let i = 0; i < 5; i++) a.publish(presence(1001, i));
    await onB.until(5);
    const jsm = await jetstreamManager(await natsConnection());
    for await (const c of jsm.consumers.list(b.names.stream))
      await jsm.consumers.delete(b.names.stream, c.name);
    for (let i = 5; i < 10; i++) a.publish(presence(1001, i));
    await onB.until(10, 20_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(
      onB.got.map((x) => (x.e as PresenceEvent).observed),
      Array.from({ length: 10 }, (_, i) => `${i}@1001`),
    );
    await Promise.all([a.close(), b.close()]);
  });

  test('reads a tenant’s events back, and says when the stream no longer holds them all', async () => {
    const { a, b } = await twoNodes(uniqueClusterName(), { perTenantEvents: 20, resumeGraceMs: 1_000 });
    const onB = collect(b);
    for (let i = 0; i < 10; i++) {
      a.publish(presence(1001, i));
      b.publish(presence(1002, i));
    }
    await onB.until(20);
    const seqOf = (t: number, i: number) =>
      onB.got.find((x) => x.e.tenantId === t && (x.e as PresenceEvent).observed === `${i}@${t}`)!.seq;
    const read = await b.read(1001, seqOf(1001, 2), seqOf(1001, 7));
    assert.deepEqual(
      read?.map((x) => [x.seq, (x.event as PresenceEvent).observed]),
      [3, 4, 5, 6, 7].map((i) => [seqOf(1001, i), `${i}@1001`]),
    );
    assert.deepEqual(await b.read(1001, 5, 5), []);
    assert.deepEqual(await b.read(1003, 0, b.position()), [], 'a tenant without events');
    // Past the per-tenant limit the oldest events are gone: a read from before them is refused.
    // (In batches the consumer keeps up with: what the limits remove first is never delivered.)
    for (let i = 10; i < 40; i++) {
      a.publish(presence(1001, i));
      if (i % 10 === 9) await onB.until(i + 11);
    }
    assert.equal(await b.read(1001, seqOf(1001, 2), b.position()), undefined);
    const kept = await b.read(1001, seqOf(1001, 25), b.position());
    assert.equal(kept?.length, 14);
    await Promise.all([a.close(), b.close()]);
  });

  test('a read-back judges what is held by the stream’s own limit, not this node’s flag (a rolling change)', async () => {
    // a started with a limit of 500 events a tenant; b, started later, set the stream's to 20.
    const { a, b } = await twoNodes(
      uniqueClusterName(),
      { perTenantEvents: 500, resumeGraceMs: 1_000 },
      { perTenantEvents: 20, resumeGraceMs: 1_000 },
    );
    const onA = collect(a);
    // Another tenant's events first: the stream's oldest stays before tenant 1001's.
    for (let i = 0; i < 5; i++) b.publish(presence(1002, i));
    await onA.until(5);
    for (let i = 0; i < 40; i++) {
      a.publish(presence(1001, i));
      if (i % 10 === 9) await onA.until(i + 6);
    }
    const seqOf = (i: number) =>
      onA.got.find((x) => x.e.tenantId === 1001 && (x.e as PresenceEvent).observed === `${i}@1001`)!.seq;
    assert.equal(await a.read(1001, seqOf(2), a.position()), undefined, 'events 3 to 19 are gone');
    assert.equal((await a.read(1001, seqOf(25), a.position()))?.length, 14);
    await Promise.all([a.close(), b.close()]);
  });

  test('the stream is made once, with the retention flags as its limits, and updated when they change', async () => {
    const clusterName = uniqueClusterName();
    const m = new StaticMembership('a');
    const one = await testBus({
      clusterName,
      membership: m,
      retention: { perTenantEvents: 100, resumeGraceMs: 60_000 },
    });
    const two = await testBus({
      clusterName,
      membership: m,
      retention: { perTenantEvents: 100, resumeGraceMs: 60_000 },
    });
    const jsm = await jetstreamManager(await natsConnection());
    let info = await jsm.streams.info(one.names.stream);
    assert.equal(info.config.max_msgs_per_subject, 100);
    assert.equal(info.config.max_age, 86_400_000 * 1e6);
    assert.equal(info.config.storage, 'file');
    assert.deepEqual(info.config.subjects, [`sb.${clusterName}.ev.>`]);
    const three = await testBus({
      clusterName,
      membership: m,
      retention: { perTenantEvents: 500, resumeGraceMs: 86_400_000 },
    });
    info = await jsm.streams.info(one.names.stream);
    assert.equal(info.config.max_msgs_per_subject, 500);
    assert.equal(info.config.max_age, 2 * 86_400_000 * 1e6);
    await Promise.all([one.close(), two.close(), three.close()]);
  });
});
