import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { CLUSTER_PROTOCOL } from '../../../src/core/cluster.js';
import {
  NodeRefusedError,
  NodeRegistry,
  refuseAnotherProtocol,
  SLOTS,
} from '../../../src/store/cluster-nodes.js';
import type { Db } from '../../../src/store/database.js';
import { DB_NOW_MS, LeaseStore } from '../../../src/store/leases.js';
import { clusterEnv } from '../../helpers/cluster.js';
import { freshSchemaDb } from '../../helpers/cluster-db.js';

const env = await clusterEnv();
const reg = (nodeId: string, ttlMs = 5000) => ({ nodeId, url: null, host: 'h', pid: 1, ttlMs });

describe('the cluster node registry', { skip: env.skip }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  let nodes: NodeRegistry;
  before(async () => {
    ({ db, drop } = await freshSchemaDb());
    nodes = new NodeRegistry(db);
  });
  after(async () => drop?.());

  it('gives every node its own call-id slot, and refuses a seventeenth', async () => {
    const slots = [];
    for (let i = 0; i < SLOTS; i++) slots.push(await nodes.register(reg(`n${i}`)));
    assert.deepEqual(
      [...slots].sort((a, b) => a - b),
      [...Array(SLOTS).keys()],
    );
    await assert.rejects(nodes.register(reg('n16')), NodeRefusedError);
    for (let i = 0; i < SLOTS; i++) await nodes.remove(`n${i}`);
  });

  it('a node is alive while its heartbeat is within its TTL; a new one is not eligible until it says so', async () => {
    await nodes.register(reg('short', 300));
    let me = (await nodes.list()).nodes.find((n) => n.nodeId === 'short')!;
    assert.equal(me.alive, true);
    assert.equal(me.eligible, false);
    assert.equal(await nodes.heartbeat('short', true, 'http://x'), true);
    me = (await nodes.list()).nodes.find((n) => n.nodeId === 'short')!;
    assert.equal(me.eligible, true);
    assert.equal(me.url, 'http://x');
    await sleep(400);
    assert.equal((await nodes.list()).nodes.find((n) => n.nodeId === 'short')!.alive, false);
    await nodes.remove('short');
  });

  it('refuses a second live node with the same id, but lets the same process register again', async () => {
    await nodes.register(reg('twin'));
    await assert.rejects(
      nodes.register({ ...reg('twin'), pid: 2 }),
      (e: unknown) =>
        e instanceof NodeRefusedError &&
        /node id twin is in use by a live node \(pid 1 on h\)/.test(e.message),
    );
    await nodes.register(reg('twin'));
    await nodes.remove('twin');
  });

  it('a node restarted with its id after a crash (its pid gone) joins at once; its old leases end', async () => {
    const host = hostname();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    await nodes.register({ ...reg('phoenix'), host, pid: dead });
    await new LeaseStore(db).acquire(77, 'phoenix', 60_000);
    await nodes.register({ ...reg('phoenix'), host, pid: process.pid });
    const lease = (await new LeaseStore(db).list()).leases.find((l) => l.tenantId === 77)!;
    assert.equal(lease.expiresAt, 0, 'free for the new life, which takes it under the next epoch');
    const again = await new LeaseStore(db).acquire(77, 'phoenix', 5000);
    assert.ok(again.acquired && again.epoch === 2);
    await nodes.remove('phoenix');
  });

  it('a node of another cluster protocol cannot join while a node of another one may run, either way', async () => {
    const older = new NodeRegistry(db, CLUSTER_PROTOCOL - 1);
    await older.register(reg('old-a', 100));
    const refusal = (node: string, theirs: number, mine: number) => (e: unknown) =>
      e instanceof NodeRefusedError &&
      e.message.includes(`node ${node} (pid 1 on h) runs cluster protocol ${theirs} and this node ${mine}`);
    await assert.rejects(
      nodes.register(reg('new-a')),
      refusal('old-a', CLUSTER_PROTOCOL - 1, CLUSTER_PROTOCOL),
    );
    const listed = (await nodes.list()).nodes.find((n) => n.nodeId === 'old-a')!;
    assert.equal(listed.protocol, CLUSTER_PROTOCOL - 1);
    assert.equal(
      (await nodes.list()).nodes.find((n) => n.nodeId === 'new-a'),
      undefined,
      'no row for it',
    );
    // Another node of the old release still joins its own.
    await older.register(reg('old-b', 100));
    await older.remove('old-b');
    // Past its TTL it may only be late (its next heartbeat would find its row): still refused,
    // before migrating too...
    await sleep(200);
    assert.equal((await nodes.list()).nodes.find((n) => n.nodeId === 'old-a')!.alive, false);
    await assert.rejects(
      nodes.register(reg('new-a')),
      refusal('old-a', CLUSTER_PROTOCOL - 1, CLUSTER_PROTOCOL),
    );
    const me = { nodeId: 'new-a', host: 'h2', pid: 2 };
    await assert.rejects(
      refuseAnotherProtocol(db.kysely, me),
      /node old-a \(pid 1 on h\) runs cluster protocol/,
    );
    // ...and once its row is gone (ten TTLs after its last heartbeat: it was killed), the new one joins...
    await sleep(1_000);
    await refuseAnotherProtocol(db.kysely, me);
    await nodes.register(reg('new-a'));
    // ...and the old release cannot come back beside it.
    await assert.rejects(
      older.register(reg('old-c')),
      refusal('new-a', CLUSTER_PROTOCOL, CLUSTER_PROTOCOL - 1),
    );
    await nodes.remove('new-a');
    await older.remove('old-a');
  });

  it("this node's own earlier row (a crashed process of this host) is not another node", async () => {
    const host = hostname();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    await new NodeRegistry(db, CLUSTER_PROTOCOL - 1).register({ ...reg('same'), host, pid: dead });
    await refuseAnotherProtocol(db.kysely, { nodeId: 'same', host, pid: process.pid });
    await assert.rejects(
      refuseAnotherProtocol(db.kysely, { nodeId: 'other', host, pid: process.pid }),
      /node same \(pid \d+ on .+\) runs cluster protocol/,
    );
    await nodes.remove('same');
  });

  it('a node older than the protocol column counts as protocol 1', async () => {
    await sql`insert into cluster_nodes (node_id, url, host, pid, slot, ttl_ms, eligible, started_at, heartbeat_at)
      values ('pre', null, 'h', 1, 9, 60000, 1, ${DB_NOW_MS}, ${DB_NOW_MS})`.execute(db.kysely);
    assert.equal((await nodes.list()).nodes.find((n) => n.nodeId === 'pre')!.protocol, 1);
    await assert.rejects(nodes.register(reg('post')), /runs cluster protocol 1 and this node/);
    await nodes.remove('pre');
  });

  it('a removed node’s heartbeat says so (it must register again)', async () => {
    await nodes.register(reg('gone'));
    await nodes.remove('gone');
    assert.equal(await nodes.heartbeat('gone', true, null), false);
  });

  it('a stopped node keeps its slot for ten TTLs, then a new node may take it and its row goes', async () => {
    for (const n of (await nodes.list()).nodes) await nodes.remove(n.nodeId);
    const old = await nodes.register(reg('old', 100));
    assert.notEqual(await nodes.register(reg('other')), old, 'held while recently alive');
    await sleep(1100);
    assert.equal(await nodes.register(reg('newer')), old);
    assert.equal(
      (await nodes.list()).nodes.find((n) => n.nodeId === 'old'),
      undefined,
    );
  });
});
