/**
 * Three lease memberships in this process on one PostgreSQL schema (no NATS, no servers): how
 * tenants spread, move, and are fenced. TTL 1500 ms, so a tick every 500 ms.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { LeaseMembership } from '../../src/cluster/lease-membership.js';
import { preferredNode } from '../../src/cluster/rendezvous.js';
import { type OwnershipChange, StaleEpochError } from '../../src/core/cluster.js';
import { NodeRegistry } from '../../src/store/cluster-nodes.js';
import type { Db } from '../../src/store/database.js';
import { assertEpoch } from '../../src/store/lease-fence.js';
import { LeaseStore } from '../../src/store/leases.js';
import { clusterEnv } from '../helpers/cluster.js';
import { freshSchemaDb } from '../helpers/cluster-db.js';

const env = await clusterEnv();
const TTL = 1500;
const TENANTS = Array.from({ length: 12 }, (_, i) => 3001 + i);
const quiet = { info() {}, warn() {}, error() {} };

interface Member {
  m: LeaseMembership;
  changes: OwnershipChange[];
  busy: Set<number>;
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting: ${what}`);
    await sleep(50);
  }
}

/** A membership of node `nodeId` on `db`, over `tenants`, with the suite's TTL. */
const membershipOn = (
  db: Db,
  nodeId: string,
  tenants: () => Iterable<number>,
  isIdle: (tenantId: number) => boolean = () => true,
) =>
  new LeaseMembership({
    leases: new LeaseStore(db),
    nodes: new NodeRegistry(db),
    nodeId,
    url: null,
    host: 'test',
    pid: process.pid,
    ttlMs: TTL,
    tenants,
    isIdle,
    log: quiet,
  });

describe('lease membership: three nodes on one database', { skip: env.skip }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  const members = new Map<string, Member>();
  let tenants = [...TENANTS];

  const add = async (id: string) => {
    const busy = new Set<number>();
    const changes: OwnershipChange[] = [];
    const m = membershipOn(
      db,
      id,
      () => tenants,
      (t) => !busy.has(t),
    );
    m.onChange((c) => void changes.push(c));
    members.set(id, { m, changes, busy });
    await m.start();
    return members.get(id)!;
  };
  const alive = () => [...members.values()].filter((x) => x.m.aliveNodes().includes(x.m.nodeId));
  /** Each tenant owned by exactly its preferred node among `nodes`, seen by every membership. */
  const settledOn = (nodes: string[]) => () =>
    tenants.every((t) => {
      const owners = [...members.values()].filter((x) => x.m.owns(t)).map((x) => x.m.nodeId);
      return owners.length === 1 && owners[0] === preferredNode(t, nodes);
    });

  before(async () => {
    ({ db, drop } = await freshSchemaDb());
  });
  after(async () => {
    for (const x of members.values()) await x.m.close().catch(() => {});
    await drop?.();
  });

  it('a lone node takes every tenant under epoch 1', async () => {
    const a = await add('a');
    assert.deepEqual(
      tenants.filter((t) => a.m.owns(t)),
      tenants,
    );
    assert.deepEqual(
      a.changes.map((c) => [c.tenantId, c.owned, c.epoch, c.previousOwner]),
      tenants.map((t) => [t, true, 1, undefined]),
    );
  });

  it('two more join: tenants spread over the three, none owned twice, handovers announced in order', async () => {
    await add('b');
    await add('c');
    await waitFor('placement on a, b, c', settledOn(['a', 'b', 'c']), 8000);
    for (const id of ['a', 'b', 'c']) {
      assert.ok(
        tenants.some((t) => members.get(id)!.m.owns(t)),
        `${id} owns at least one of ${tenants.length}`,
      );
    }
    const { leases } = await new LeaseStore(db).list();
    for (const t of tenants) {
      const l = leases.find((x) => x.tenantId === t)!;
      assert.equal(l.owner, preferredNode(t, ['a', 'b', 'c']));
      assert.equal(members.get(l.owner)!.m.epochOf(t), l.epoch);
    }
    // What b gained came from a: announced with a as the previous owner, under epoch 2.
    const b = members.get('b')!;
    const a = members.get('a')!;
    // owns() turns at once; the listeners hear it in order, a moment later (seen under load).
    await waitFor(
      'the gains and losses announced',
      () =>
        tenants.every((t) => !b.m.owns(t) || b.changes.some((c) => c.tenantId === t && c.owned)) &&
        tenants.every((t) => a.m.owns(t) || a.changes.some((c) => c.tenantId === t && !c.owned)),
      TTL,
    );
    assert.ok(b.changes.length > 0);
    for (const c of b.changes) assert.deepEqual([c.owned, c.epoch, c.previousOwner], [true, 2, 'a']);
    // a announced each loss after the gain of the same tenant.
    for (const c of a.changes.filter((x) => !x.owned)) {
      const gained = a.changes.findIndex((x) => x.tenantId === c.tenantId && x.owned);
      assert.ok(gained >= 0 && gained < a.changes.indexOf(c));
      assert.equal(c.epoch, 1);
    }
    // a learns the new owner at its next look (nodes nudge each other over NATS; not here).
    const fromB = tenants.find((t) => b.m.owns(t))!;
    await waitFor('a sees b own it', () => a.m.ownerOf(fromB) === 'b', TTL);
  });

  it('a tenant with a live call stays with its owner until it is idle', async () => {
    const movingToD = tenants.filter((x) => preferredNode(x, ['a', 'b', 'c', 'd']) === 'd');
    assert.ok(movingToD.length >= 2, 'd is preferred for some tenants');
    const busyOne = movingToD[0]!;
    const holder = [...members.values()].find((x) => x.m.owns(busyOne))!;
    holder.busy.add(busyOne);
    const d = await add('d');
    await waitFor('the idle ones on d', () => movingToD.slice(1).every((t) => d.m.owns(t)), 5000);
    await sleep(TTL);
    assert.ok(holder.m.owns(busyOne), 'the busy tenant stayed');
    assert.ok(!d.m.owns(busyOne));
    holder.busy.delete(busyOne);
    await waitFor('placement on a, b, c, d', settledOn(['a', 'b', 'c', 'd']), 5000);
  });

  it('a node leaving (close) hands its tenants over within a tick or two', async () => {
    const d = members.get('d')!;
    const had = tenants.filter((t) => d.m.owns(t));
    const t0 = performance.now();
    await d.m.close();
    members.delete('d');
    assert.ok(had.every((t) => !d.m.owns(t)));
    assert.deepEqual(
      d.changes
        .filter((c) => !c.owned && had.includes(c.tenantId))
        .map((c) => c.tenantId)
        .sort(),
      [...had].sort(),
    );
    await waitFor('placement on a, b, c', settledOn(['a', 'b', 'c']), 3000);
    assert.ok(performance.now() - t0 < 2 * TTL, 'well before a TTL would have lapsed twice');
  });

  it('a stalled node loses its leases after the TTL; its fenced writes are refused; it rejoins', async () => {
    const c = members.get('c')!;
    c.busy.clear();
    const had = tenants.filter((t) => c.m.owns(t));
    assert.ok(had.length > 0);
    const t = had[0]!;
    const staleEpoch = c.m.epochOf(t)!;
    c.m.pause();
    await waitFor('c’s tenants on a and b', settledOn(['a', 'b']), TTL + 3000);
    assert.ok(
      c.changes.some((x) => x.tenantId === t && !x.owned && x.epoch === staleEpoch),
      'c announced the loss itself (its watchdog), while stalled',
    );
    const owner = [...members.values()].find((x) => x.m.owns(t))!;
    assert.ok(owner.m.epochOf(t)! > staleEpoch);
    assert.equal(
      owner.changes.at(-1)?.tenantId === t ||
        owner.changes.some((x) => x.tenantId === t && x.previousOwner === 'c'),
      true,
    );

    await assert.rejects(
      db.kysely.transaction().execute(async (trx) => {
        await assertEpoch(trx, t, 'c', staleEpoch);
        await trx
          .insertInto('kv')
          .values({ key: `t${t}`, value: 'stale' })
          .execute();
      }),
      StaleEpochError,
    );
    await db.kysely.transaction().execute(async (trx) => {
      await assertEpoch(trx, t, owner.m.nodeId, owner.m.epochOf(t)!);
      await trx
        .insertInto('kv')
        .values({ key: `t${t}`, value: 'current' })
        .execute();
    });

    c.m.resume();
    await waitFor('c rejoins', settledOn(['a', 'b', 'c']), 8000);
    assert.ok(c.m.epochOf(t)! > owner.m.epochOf(t)! || c.m.epochOf(t)! > staleEpoch);
    assert.equal(alive().length, 3);
  });

  it('a new tenant is placed; a removed one is given up', async () => {
    tenants = [...TENANTS, 3999];
    await waitFor('3999 placed', settledOn(['a', 'b', 'c']), 3000);
    const holder = [...members.values()].find((x) => x.m.owns(3999))!;
    tenants = [...TENANTS];
    await waitFor('3999 given up', () => !holder.m.owns(3999), 3000);
  });

  it('a draining node hands its idle tenants over at once and a busy one when its call ends', async () => {
    // A node id the hashing gives at least two of the tenants.
    const id = ['e', 'g', 'h', 'i', 'j', 'k'].find(
      (n) => tenants.filter((t) => preferredNode(t, ['a', 'b', 'c', n]) === n).length >= 2,
    )!;
    const e = await add(id);
    await waitFor(`placement on a, b, c, ${id}`, settledOn(['a', 'b', 'c', id]), 8000);
    const had = tenants.filter((t) => e.m.owns(t));
    assert.ok(had.length >= 2, `e holds tenants (${had.length})`);
    const [busyOne, ...idle] = had;
    e.busy.add(busyOne!);
    let drained = false;
    const draining = e.m.drain(30_000).then(() => (drained = true));
    assert.equal(e.m.isDraining, true);
    await waitFor(
      'the idle ones on their next preferred nodes',
      () => idle.every((t) => members.get(preferredNode(t, ['a', 'b', 'c'])!)!.m.owns(t)),
      5000,
    );
    await sleep(TTL);
    assert.equal(e.m.owns(busyOne!), true, 'the busy one stays, its call goes on');
    assert.equal(drained, false);
    e.busy.delete(busyOne!); // its call ended
    await draining;
    assert.deepEqual(
      tenants.filter((t) => e.m.owns(t)),
      [],
    );
    await waitFor('placement on a, b, c', settledOn(['a', 'b', 'c']), 3000);
    await e.m.close();
    members.delete(id);
  });

  it('every node draining at once: no one to hand tenants to, so no drain waits its time', async () => {
    const all = [...members.values()];
    for (const x of all) for (const t of tenants) if (x.m.owns(t)) x.busy.add(t);
    const t0 = performance.now();
    await Promise.all(all.map((x) => x.m.drain(30_000)));
    const took = performance.now() - t0;
    assert.ok(took < 5_000, `ended once no node was eligible (${Math.round(took)} ms)`);
    assert.ok(all.every((x) => !x.m.isDraining));
    assert.ok(
      tenants.every((t) => all.some((x) => x.m.owns(t))),
      'every tenant still owned',
    );
    for (const x of all) x.busy.clear();
    await waitFor('placement on a, b, c', settledOn(['a', 'b', 'c']), 5000);
  });

  it('a drain ends when its time is up; a node with no one to hand over to does not wait', async () => {
    const id = ['f', 'l', 'm', 'n', 'o', 'p'].find((n) =>
      tenants.some((t) => preferredNode(t, ['a', 'b', 'c', n]) === n),
    )!;
    const f = await add(id);
    await waitFor(`placement on a, b, c, ${id}`, settledOn(['a', 'b', 'c', id]), 8000);
    const had = tenants.filter((t) => f.m.owns(t));
    assert.ok(had.length > 0);
    for (const t of had) f.busy.add(t);
    const t0 = performance.now();
    await f.m.drain(600);
    const took = performance.now() - t0;
    assert.ok(took >= 550 && took < 3000, `bounded by its time (${Math.round(took)} ms)`);
    assert.ok(
      had.every((t) => f.m.owns(t)),
      'still busy: left for close to give up',
    );
    await f.m.close();
    members.delete(id);
    await waitFor('placement on a, b, c', settledOn(['a', 'b', 'c']), 3000);

    // Alone in its own cluster, a node has no one to hand its tenants to: no wait.
    const { db: own, drop: dropOwn } = await freshSchemaDb();
    const lone = membershipOn(
      own,
      'lone',
      () => [3401],
      () => false,
    );
    try {
      await lone.start();
      const t1 = performance.now();
      await lone.drain(30_000);
      assert.ok(performance.now() - t1 < 1000);
      assert.equal(lone.owns(3401), true);
    } finally {
      await lone.close();
      await dropOwn();
    }
  });
});

describe('lease membership: a stalled process', { skip: env.skip }, () => {
  it('owns nothing past its leases’ deadline, before its watchdog has run', async () => {
    const { db, drop } = await freshSchemaDb();
    const m = membershipOn(db, 'stalls', () => [3201]);
    try {
      await m.start();
      assert.equal(m.owns(3201), true);
      const epoch = m.epochOf(3201);
      // The event loop held past the TTL (a long pause): no timer, the watchdog's included, runs.
      const end = performance.now() + TTL + 100;
      while (performance.now() < end);
      // What runs first after such a stall (an overdue timer, buffered I/O) sees no lease.
      assert.equal(m.owns(3201), false);
      assert.equal(m.epochOf(3201), undefined);
      assert.equal(m.ownerOf(3201), undefined);
      assert.ok(epoch !== undefined);
    } finally {
      await m.close();
      await drop();
    }
  });
});

describe('lease membership: a tenant lost and taken again', { skip: env.skip }, () => {
  it('is not owned again until its loss has been heard by every listener', async () => {
    const { db, drop } = await freshSchemaDb();
    const m = membershipOn(db, 'regains', () => [3301]);
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    // The loss's listener is slow (it drops the tenant's calls): until it has run, the switch
    // still holds the lost epoch's calls, which must not be written or published as the next one's.
    m.onChange(async (c) => {
      if (!c.owned) await blocked;
    });
    const leaseRow = () =>
      db.kysely
        .selectFrom('tenant_leases')
        .select(['owner_node', 'epoch'])
        .where('tenant_id', '=', 3301)
        .executeTakeFirst();
    try {
      await m.start();
      const first = m.epochOf(3301)!;
      const end = performance.now() + TTL + 100;
      while (performance.now() < end); // a stall past the TTL: the lease lapses
      await waitFor('taken again under a new epoch', async () => {
        const row = await leaseRow();
        return row?.owner_node === 'regains' && Number(row.epoch) > first;
      });
      assert.equal(m.owns(3301), false, 'its loss is still being heard');
      assert.equal(m.epochOf(3301), undefined);
      release();
      await m.takingOver(3301);
      assert.equal(m.owns(3301), true);
      assert.ok(m.epochOf(3301)! > first);
    } finally {
      release();
      await m.close();
      await drop();
    }
  });
});

describe('lease membership: a gain being taken over', { skip: env.skip }, () => {
  let db: Db;
  let drop: () => Promise<void>;
  before(async () => ({ db, drop } = await freshSchemaDb()));
  after(async () => drop?.());

  const solo = (nodeId: string, tenants: number[]) => membershipOn(db, nodeId, () => tenants);

  it('is under way (takingOver) from the grant until every listener has run; others go on', async () => {
    const m = solo('solo', [3001, 3002]);
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const heard: string[] = [];
    m.onChange(async (c) => {
      if (c.tenantId === 3001) await blocked; // the first tenant's takeover is slow
      heard.push(`first ${c.tenantId}`);
    });
    m.onChange((c) => void heard.push(`second ${c.tenantId}`));
    try {
      await m.start();
      assert.equal(m.owns(3001), true, 'owned from the grant');
      const taking = m.takingOver(3001);
      assert.ok(taking, 'its takeover is under way');
      let done = false;
      void taking.then(() => (done = true));
      const second = await Promise.race([m.takingOver(3002)?.then(() => 'taken'), sleep(2000, 'waiting')]);
      assert.equal(second, 'taken', 'the second tenant does not wait for the first');
      assert.deepEqual(heard, ['first 3002', 'second 3002']);
      assert.equal(m.takingOver(3002), undefined);
      await sleep(50);
      assert.equal(done, false);
      assert.ok(m.takingOver(3001));
      release();
      await taking;
      assert.deepEqual(heard.slice(2), ['first 3001', 'second 3001'], 'listeners in order');
      assert.equal(m.takingOver(3001), undefined);
    } finally {
      release();
      await m.close();
    }
  });

  it('announces at most four tenants at once, and a tenant’s changes in order', async () => {
    const tenants = Array.from({ length: 9 }, (_, i) => 3101 + i);
    const m = solo('busy', tenants);
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    let running = 0;
    let most = 0;
    const heard: string[] = [];
    m.onChange(async (c) => {
      most = Math.max(most, ++running);
      await blocked;
      await sleep(5);
      running--;
      heard.push(`${c.owned ? 'gained' : 'lost'} ${c.tenantId}`);
    });
    try {
      await m.start();
      await waitFor('four announced', () => running === 4);
      await sleep(50);
      assert.equal(running, 4, 'the others wait for a turn');
      const closing = m.close(); // every tenant lost, each after its gain
      release();
      await closing;
      assert.equal(most, 4);
      assert.equal(heard.length, 18);
      for (const t of tenants)
        assert.ok(heard.indexOf(`gained ${t}`) < heard.indexOf(`lost ${t}`), `${t}: gained, then lost`);
    } finally {
      release();
      await m.close();
    }
  });
});
