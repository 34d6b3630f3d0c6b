import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { sql } from 'kysely';
import pino from 'pino';
import { createAuthenticator, LockedOutError, UnauthorizedError } from '../../src/api/auth/index.js';
import { SocketRegistry } from '../../src/api/limits/socket-registry.js';
import { startClusterSecurity, type ClusterSecurity } from '../../src/cluster/security-sync.js';
import { demoWorld } from '../../src/directory/demo-world.js';
import { Directory } from '../../src/directory/directory.js';
import { DEFAULTS } from '../../src/server/config.js';
import { type Db, openDatabase } from '../../src/store/database.js';
import { DB_NOW_MS } from '../../src/store/leases.js';
import { SqlSharedSocketClaims } from '../../src/store/shared-socket-claims.js';
import { TokenService } from '../../src/api/ccs/tokens.js';
import { sha256 } from '../../src/core/secrets.js';
import { clusterServices } from '../helpers/cluster-services.js';
import { CuttableProxy } from '../helpers/cuttable-proxy.js';

/**
 * Security state over the nodes of a cluster, attacked as the issue describes: failed logins
 * spread over two nodes lock the principal on both, and one client's sockets are counted over
 * every node. Two nodes here are two authenticators (and socket registries) on one database
 * and one NATS server, each wired as a cluster node wires them.
 */
const services = await clusterServices();

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    assert.ok(Date.now() < deadline, what);
    await sleep(20);
  }
}

describe('cluster security state', { skip: services.skip }, () => {
  let db: Db;
  let nats: NatsConnection;
  const nodes: ClusterSecurity[] = [];
  const prefix = `sb.t${process.pid}x${Date.now()}`;

  before(async () => {
    db = await openDatabase(services.target());
    nats = await connect({ servers: services.natsUrl });
  });
  after(async () => {
    for (const n of nodes) await n.close();
    await nats?.drain();
    await db?.close();
    await services.cleanup();
  });

  const node = (nodeId: string, ttlMs = 5000, own?: NatsConnection) => {
    const security = startClusterSecurity({
      db,
      nats: own ?? nats,
      prefix,
      nodeId,
      ttlMs,
      log: pino({ level: 'silent' }),
    });
    nodes.push(security);
    return security;
  };
  const authenticatorOn = async (security: ClusterSecurity) => {
    const directory = await Directory.load({
      loadAll: async () => demoWorld(),
      load: async () => [],
      upsert: async () => {},
      insert: async () => true,
      remove: async () => {},
      replaceAll: async () => {},
    });
    return createAuthenticator({
      directory,
      config: { ...DEFAULTS, lockoutFailures: 3 },
      onReset: () => {},
      sharedLockouts: security.lockouts,
    });
  };

  test('three failed logins spread over two nodes lock the principal on both, whatever the spelling', async () => {
    const a = await authenticatorOn(node('a'));
    const b = await authenticatorOn(node('b'));
    const ip = '203.0.113.7';
    await assert.rejects(a.authenticate('102@1001', 'wrong1', ip), UnauthorizedError);
    await assert.rejects(b.authenticate('102@01001', 'wrong2', ip), UnauthorizedError);
    await assert.rejects(a.authenticate('102@1001.ID', 'wrong3', ip), LockedOutError);
    // The right PIN is refused on both nodes now.
    await assert.rejects(b.authenticate('102@1001', '1234', ip), LockedOutError);
    await assert.rejects(a.authenticate('102@1001', '1234', ip), LockedOutError);
    // Another address is not locked.
    const p = await b.authenticate('102@1001', '1234', '203.0.113.8');
    assert.equal(p.ext, '102');
  });

  test('a credential another node verified before is refused once the principal is locked anywhere', async () => {
    const a = await authenticatorOn(node('c'));
    const b = await authenticatorOn(node('d'));
    const ip = '203.0.113.9';
    assert.equal((await b.authenticate('103@1001', '1234', ip)).ext, '103'); // cached on b
    for (const pin of ['x1', 'x2'])
      await assert.rejects(a.authenticate('103@1001', pin, ip), UnauthorizedError);
    await assert.rejects(a.authenticate('103@1001', 'x3', ip), LockedOutError);
    // b hears the lock-out over NATS; its cached success no longer lets the principal in.
    const deadline = Date.now() + 2000;
    for (;;) {
      try {
        await b.authenticate('103@1001', '1234', ip);
      } catch (e) {
        assert.ok(e instanceof LockedOutError);
        break;
      }
      assert.ok(Date.now() < deadline, 'the lock-out never reached the other node');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  test('guesses sent to several nodes at the same moment cannot together pass the lock-out', async () => {
    // Four nodes, three guesses each, all at once: on one node they would be checked one after
    // another, so the rule's three failures are the most ever checked.
    const nodes = await Promise.all([1, 2, 3, 4].map((n) => authenticatorOn(node(`guesser-${n}`))));
    const ip = '203.0.113.30';
    const results = await Promise.allSettled(
      nodes.flatMap((a, i) => [1, 2, 3].map((j) => a.authenticate('106@1001', `g${i}${j}`, ip))),
    );
    assert.ok(results.every((r) => r.status === 'rejected'));
    const checked = nodes.reduce((n, a) => n + a.derivations(), 0);
    assert.equal(checked, 3, `${checked} guesses checked`);
    for (const a of nodes) await assert.rejects(a.authenticate('106@1001', '1234', ip), LockedOutError);
  });

  test('a node cut off from NATS asks the database before it uses a credential it cached', async () => {
    const proxy = new CuttableProxy(new URL(services.natsUrl));
    const own = await connect({
      servers: await proxy.start(),
      reconnectTimeWait: 50,
      maxReconnectAttempts: -1,
    });
    try {
      const aNode = node('cut', 5000, own);
      const a = await authenticatorOn(aNode);
      const b = await authenticatorOn(node('heard'));
      const [ip1, ip2, ip3] = ['203.0.113.20', '203.0.113.21', '203.0.113.22'];
      const basic = `Basic ${Buffer.from('105@1001:1234').toString('base64')}`;
      for (const ip of [ip1, ip2]) assert.equal((await a.authenticate('105@1001', '1234', ip)).ext, '105');
      assert.equal((await a.verifyBasic(basic, sha256(basic), ip3))?.ext, '105');
      assert.equal(a.cachedBasic(sha256(basic), ip3)?.ext, '105', 'a lookup while the node hears');
      const derivations = a.derivations();
      const lockOnB = async (ip: string) => {
        for (const pin of ['y1', 'y2'])
          await assert.rejects(b.authenticate('105@1001', pin, ip), UnauthorizedError);
        await assert.rejects(b.authenticate('105@1001', 'y3', ip), LockedOutError);
      };

      proxy.cut();
      await until('the cut was never noticed', () => aNode.lockouts.hearing() === undefined);
      await lockOnB(ip1);
      await lockOnB(ip3);
      // The announcements never reach a: its cached successes must not let the principal in.
      await assert.rejects(a.authenticate('105@1001', '1234', ip1), LockedOutError);
      assert.equal(a.cachedBasic(sha256(basic), ip3), undefined, 'not used without the database');
      await assert.rejects(a.verifyBasic(basic, sha256(basic), ip3), LockedOutError);
      await lockOnB(ip2);

      proxy.mend();
      await until('never reconnected', () => aNode.lockouts.hearing() !== undefined);
      // Back: what was announced meanwhile is lost for good, so the database is asked.
      await assert.rejects(a.authenticate('105@1001', '1234', ip2), LockedOutError);
      assert.equal(a.derivations(), derivations, 'asked of the database, with no key derivation');

      // A cut the node sees only as it ends, with no request in between, ends the stretch too.
      const ip4 = '203.0.113.23';
      assert.equal((await a.authenticate('105@1001', '1234', ip4)).ext, '105');
      proxy.cut();
      await until('the cut was never noticed', () => aNode.lockouts.hearing() === undefined);
      await lockOnB(ip4);
      proxy.mend();
      await until('never reconnected', () => aNode.lockouts.hearing() !== undefined);
      await assert.rejects(a.authenticate('105@1001', '1234', ip4), LockedOutError);
    } finally {
      await own.close();
      await proxy.close();
    }
  });

  test("one client's sockets are counted over every node", async () => {
    const limits = () => ({ max: 100, perClient: 1, idleMs: 60_000 });
    const a = new SocketRegistry(limits, node('e').socketClaims);
    const b = new SocketRegistry(limits, node('f').socketClaims);
    const client = `voice\u0000ext:1001:101\u0000203.0.113.10`;
    assert.equal(await a.check(client), null);
    const slot = a.admit(client, () => {});
    assert.equal(await b.check(client), 'client', 'a second socket on another node is refused');
    assert.equal(await b.check(`${client}x`), null, 'another client is not');
    // Its client closes it and at once reconnects through the other node: admitted, though the
    // claim is deleted a moment later (socket-registry.ts, RELEASE_GRACE_MS).
    slot.release();
    assert.equal(await b.check(client), null, 'the socket just closed on a counts no more');
    b.admit(client, () => {}).release();
  });

  test('two nodes admitting one client at once: only one passes', async () => {
    const client = `cc\u0000ext:1001:104\u0000203.0.113.11`;
    const claims = [node('g').socketClaims, node('h').socketClaims];
    const got = await Promise.all([...claims, ...claims].map((c) => c.claim(client, 1)));
    assert.equal(got.filter((g) => g !== null).length, 1);
  });

  test('a token issued on one node works on another, and a refresh token is traded once over all nodes', async () => {
    const a = new TokenService(db);
    const b = new TokenService(db);
    const grant = (await a.issue('101@1001'))!;
    assert.equal(await b.subjectOf(grant.access_token), '101@1001');
    const traded = await Promise.all([a.refresh(grant.refresh_token!), b.refresh(grant.refresh_token!)]);
    assert.equal(traded.filter((t) => t !== null).length, 1);
  });

  test('a stalled node hears which of its claims are gone, and they are no longer kept alive', async () => {
    const client = `voice\u0000ext:1001:106\u0000203.0.113.13`;
    const stalled = new SqlSharedSocketClaims(db, 'stalled-node', 300);
    const lost: string[] = [];
    stalled.onLost((id) => lost.push(id));
    const mine = await stalled.claim(client, 1);
    assert.ok(mine);
    await new Promise((r) => setTimeout(r, 350)); // no renewal past the time to live
    const other = node('j').socketClaims;
    assert.ok(await other.claim(client, 1), 'expired: the client connects through another node');
    await stalled.renew(); // before any node swept the expired row: it is not revived
    assert.deepEqual(lost, [mine], 'told, so its socket closes');
    await other.renew(); // drops every expired claim
    assert.equal(await other.claim(client, 1), null, 'one socket for the client, the newer');
  });

  test('claims that expired while none could be renewed (a database outage) are taken again, not closed', async () => {
    const swept = `voice\u0000ext:1001:107\u0000203.0.113.14`;
    const left = `voice\u0000ext:1001:108\u0000203.0.113.14`;
    const paused = new SqlSharedSocketClaims(db, 'paused-node', 300);
    const lost: string[] = [];
    paused.onLost((id) => lost.push(id));
    assert.ok(await paused.claim(swept, 1));
    assert.ok(await paused.claim(left, 1));
    await sleep(350); // no renewal past the time to live
    await db.kysely.deleteFrom('socket_claims').where('client_key', '=', sha256(swept)).execute();
    await paused.renew(); // one row swept by another node meanwhile, one still there, expired
    assert.deepEqual(lost, [], "each is still its client's one socket: kept");
    const other = node('after-outage').socketClaims;
    for (const client of [swept, left]) assert.equal(await other.claim(client, 1), null, 'and counts again');
    await paused.releaseAll();
  });

  test('a node whose thousands of clients outlived an outage takes every claim again', async () => {
    // One advisory lock per client: all in one transaction they overflow the database's lock
    // table (64 × max_connections entries by default, with some slack) on every renewal.
    const errors: unknown[] = [];
    const survivor = new SqlSharedSocketClaims(db, 'outage-node', 5000, (e) => errors.push(e));
    const lost: string[] = [];
    survivor.onLost((id) => lost.push(id));
    const claims = Array.from({ length: 30_000 }, (_, i) => ({
      id: `outage-${process.pid}-${i}`,
      client: `c${i}`,
    }));
    for (let i = 0; i < claims.length; i += 5_000) {
      await db.kysely
        .insertInto('socket_claims')
        .values(
          claims.slice(i, i + 5_000).map((c) => ({
            claim_id: c.id,
            client_key: sha256(c.client),
            node_id: 'outage-node',
            expires_at: sql<number>`${DB_NOW_MS} - 1000`, // expired while no node could renew
          })),
        )
        .execute();
    }
    const live = (survivor as unknown as { live: Map<string, { key: string; perClient: number }> }).live;
    for (const c of claims) live.set(c.id, { key: sha256(c.client), perClient: 1 });
    await survivor.renew();
    assert.deepEqual(errors, []);
    assert.deepEqual(lost, [], 'every claim kept');
    const { n } = await db.kysely
      .selectFrom('socket_claims')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('node_id', '=', 'outage-node')
      .where('expires_at', '>', DB_NOW_MS)
      .executeTakeFirstOrThrow();
    assert.equal(Number(n), claims.length, 'every one live again');
    assert.equal(
      await node('outage-other').socketClaims.claim(claims[29_999]!.client, 1),
      null,
      'and counted',
    );
    await survivor.releaseAll();
  });

  test('a node holding more sockets than a statement takes parameters renews and frees them all', async () => {
    // PostgreSQL takes at most 65,535 parameters in one statement: an `in (…)` list of every
    // claim failed each renewal, so every socket of such a node lost its claim.
    const many = new SqlSharedSocketClaims(db, 'busy-node', 5000);
    const lost: string[] = [];
    many.onLost((id) => lost.push(id));
    const ids = Array.from({ length: 70_000 }, (_, i) => `busy-${process.pid}-${i}`);
    for (let i = 0; i < ids.length; i += 5_000) {
      await db.kysely
        .insertInto('socket_claims')
        .values(
          ids.slice(i, i + 5_000).map((id) => ({
            claim_id: id,
            client_key: 'busy-client',
            node_id: 'busy-node',
            expires_at: Date.now() + 60_000,
          })),
        )
        .execute();
    }
    // As if taken one by one through `claim` (the node's own record of its claims).
    const live = (many as unknown as { live: Map<string, { key: string; perClient: number }> }).live;
    for (const id of ids) live.set(id, { key: 'busy-client', perClient: ids.length });
    await many.renew();
    assert.deepEqual(lost, [], 'every claim kept');
    await many.releaseAll();
    const left = await db.kysely
      .selectFrom('socket_claims')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('node_id', '=', 'busy-node')
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0);
  });

  test('a claim whose removal failed is removed at the next renewal, not kept alive', async () => {
    const client = `voice\u0000ext:1001:107\u0000203.0.113.14`;
    let failNext = true;
    // The database failing one delete (a blip), as the pool would.
    const flaky: Db = {
      ...db,
      kysely: new Proxy(db.kysely, {
        get(target, prop) {
          if (prop === 'deleteFrom' && failNext) {
            failNext = false;
            return () => ({ where: () => ({ execute: () => Promise.reject(new Error('connection lost')) }) });
          }
          const v = Reflect.get(target, prop, target) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      }),
    };
    const errors: unknown[] = [];
    const claims = new SqlSharedSocketClaims(flaky, 'flaky-node', 5000, (e) => errors.push(e));
    const id = await claims.claim(client, 1);
    assert.ok(id);
    claims.free(id);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(errors.length, 1);
    const other = node('k').socketClaims;
    assert.equal(await other.claim(client, 1), null, 'the claim still counts');
    await claims.renew();
    assert.ok(await other.claim(client, 1), 'removed at the renewal');
  });

  test('failed logins of the past are swept from the database; recent ones and lock-outs stay', async () => {
    const { lockouts } = node('l');
    const rule = { failures: 3, windowMs: 60_000, periodMs: 300_000 };
    const now = Date.now();
    const keys = [`sweep-old-${now}`, `sweep-recent-${now}`, `sweep-locked-${now}`, `sweep-guess-${now}`];
    const guess = async (key: string, at: number) => {
      const g = await lockouts.guess(key, at, rule);
      assert.ok('guess' in g);
      return g.guess;
    };
    const fail = async (key: string, at: number) =>
      lockouts.settle(key, await guess(key, at), true, at, rule);
    // An address that failed once long ago, one that failed a moment ago, one locked out, and one
    // whose guess is under way.
    await fail(keys[0]!, now - 120_000);
    await fail(keys[1]!, now - 1_000);
    for (let i = 0; i < 3; i++) await fail(keys[2]!, now - 2_000);
    await guess(keys[3]!, now - 1_000);
    await lockouts.sweep(now, rule.windowMs); // (a failed login also sweeps, at most once a minute)
    const left = await db.kysely.selectFrom('auth_failures').select('lock_key').execute();
    const has = (k: string) => left.some((r) => r.lock_key === sha256(k));
    assert.equal(has(keys[0]!), false, 'the old one swept');
    assert.equal(has(keys[1]!), true, 'a failure within the window still counts');
    assert.equal(has(keys[2]!), true, 'a lock-out stays until it ends');
    assert.equal(has(keys[3]!), true, 'a guess under way still counts');
    assert.ok((await lockouts.lockedUntil(keys[2]!, now)) > now);
  });

  test("a dead node's claims stop counting after their time to live", async () => {
    const client = `voice\u0000ext:1001:105\u0000203.0.113.12`;
    const dead = new SqlSharedSocketClaims(db, 'dead-node', 300); // never renewed
    assert.ok(await dead.claim(client, 1));
    const alive = node('i').socketClaims;
    assert.equal(await alive.claim(client, 1), null);
    await new Promise((r) => setTimeout(r, 350));
    assert.ok(await alive.claim(client, 1));
  });
});
