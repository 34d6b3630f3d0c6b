import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import pino from 'pino';
import { FLUSH_MS, InflightSync } from '../../src/cluster/inflight-sync.js';
import { clusterServices } from '../helpers/cluster-services.js';

/**
 * The in-flight counts nodes announce to each other (src/cluster/inflight-sync.ts) on the real
 * NATS server: heard by the others, and forgotten when their node falls silent (killed).
 */
const services = await clusterServices();

async function until(ok: () => boolean): Promise<boolean> {
  for (let i = 0; i < 200 && !ok(); i++) await sleep(10);
  return ok();
}

describe('in-flight counts between nodes', { skip: services.skip }, () => {
  const prefix = `sb.t${process.pid}i${Date.now()}`;
  const conns: NatsConnection[] = [];
  const syncs: InflightSync[] = [];
  after(async () => {
    for (const s of syncs) s.close();
    for (const c of conns) await c.close().catch(() => {});
    await services.cleanup();
  });
  const node = async (nodeId: string) => {
    const nats = await connect({ servers: services.natsUrl });
    conns.push(nats);
    const sync = new InflightSync({ nats, prefix, nodeId, ttlMs: 600, log: pino({ level: 'silent' }) });
    syncs.push(sync);
    return { nats, sync };
  };

  test('counts are summed on the other nodes, the lower id ahead, and expire with a silent node', async () => {
    const a = await node('a');
    const b = await node('b');
    const c = await node('c');
    a.sync.pools.requests.changed('k', 2);
    c.sync.pools.requests.changed('k', 1);
    b.sync.pools.anonymous.changed('127.0.0.9', 1);
    assert.ok(await until(() => b.sync.pools.requests.elsewhere('k') === 3));
    // For b, a (lower id) is ahead and c is not.
    assert.equal(b.sync.pools.requests.ahead('k'), 2);
    assert.ok(await until(() => a.sync.pools.anonymous.elsewhere('127.0.0.9') === 1));
    assert.equal(a.sync.pools.requests.elsewhere('k'), 1, 'a node does not count its own announcements');
    // Pools are apart.
    assert.equal(b.sync.pools.anonymous.elsewhere('k'), 0);
    // A count going down is heard.
    a.sync.pools.requests.changed('k', 1);
    assert.ok(await until(() => b.sync.pools.requests.elsewhere('k') === 2));
    // c is killed (its connection gone, no goodbye): its count stops counting after the TTL.
    await c.nats.close();
    assert.ok(await until(() => b.sync.pools.requests.elsewhere('k') === 1), 'c expired');
    assert.equal(b.sync.pools.requests.ahead('k'), 1);
  });

  test('a count back where it was last announced costs no message; a change is announced', async () => {
    const x = await node('x');
    const seen: { node: string; full: boolean; counts: Record<string, [string, number][]> }[] = [];
    const spy = x.nats.subscribe(`${prefix}.sec.inflight`, {
      callback: (_e, m) => {
        seen.push(m.json());
      },
    });
    const told = () => seen.filter((a) => a.node === 'x' && !a.full);
    await x.nats.flush();
    // A request that begins and ends within one gathering.
    x.sync.pools.requests.changed('q', 1);
    x.sync.pools.requests.changed('q', 0);
    await sleep(FLUSH_MS * 5);
    assert.deepEqual(told(), []);
    // One that lasts is announced, then its end.
    x.sync.pools.requests.changed('q', 1);
    assert.ok(
      await until(() => told().some((a) => a.counts.requests?.some(([c, n]) => c === 'q' && n === 1))),
    );
    x.sync.pools.requests.changed('q', 0);
    assert.ok(
      await until(() => told().some((a) => a.counts.requests?.some(([c, n]) => c === 'q' && n === 0))),
    );
    spy.unsubscribe();
  });
});
