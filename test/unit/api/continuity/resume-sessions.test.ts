import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import type { EventJournal } from '../../../../src/api/continuity/event-journal.js';
import { releaseEveryMs, ResumeSessions } from '../../../../src/api/continuity/resume-sessions.js';
import { VirtualClock } from '../../../../src/core/clock.js';
import type { SessionStorePort, StoredSession } from '../../../../src/core/event-stream.js';

/** The shared store of a cluster, in memory, with the conditional writes of the SQL one. */
class MemoryStore implements SessionStorePort {
  readonly rows = new Map<string, StoredSession>();
  /** The next `put` fails (a database error). */
  failPut = false;
  async all() {
    return [...this.rows.values()].map((r) => ({ ...r }));
  }
  async get(id: string) {
    const r = this.rows.get(id);
    return r && { ...r };
  }
  async put(s: StoredSession) {
    if (this.failPut) {
      this.failPut = false;
      throw new Error('write failed');
    }
    this.rows.set(s.id, { ...s });
  }
  async putHeld(s: StoredSession & { holder: string }) {
    const r = this.rows.get(s.id);
    if (!r || r.holder !== s.holder) return false;
    this.rows.set(s.id, { ...r, state: s.state, detachedAt: s.detachedAt });
    return true;
  }
  /** The releases of dead nodes' sessions asked for: (now, grace). */
  readonly released: [number, number][] = [];
  /** The starts that counted this node's attached sessions as detached: at (now). */
  readonly detachedOwn: number[] = [];
  async detachOwn(now: number) {
    this.detachedOwn.push(now);
  }
  async releaseDeadNodes(now: number, graceMs: number) {
    this.released.push([now, graceMs]);
    return { detached: 0, removed: 0 };
  }
  async remove(id: string, ifStored?: { detachedAt: number | null; holder?: string | null }) {
    const r = this.rows.get(id);
    if (!r) return;
    if (ifStored && r.detachedAt !== ifStored.detachedAt) return;
    if (ifStored?.holder !== undefined && r.holder !== ifStored.holder) return;
    this.rows.delete(id);
  }
}

const GRACE = 60_000;
const log = pino({ level: 'silent' });
const followed = new Map<number | null, number>();
const journal = {
  follow: (t: number | null) => followed.set(t, (followed.get(t) ?? 0) + 1),
  unfollow: (t: number | null) => followed.set(t, (followed.get(t) ?? 0) - 1),
} as unknown as EventJournal;
const settle = () => new Promise((r) => setTimeout(r, 5));

/** Two nodes of a cluster on one store; each its own clock, at the same time. */
function twoNodes() {
  const store = new MemoryStore();
  const clocks = [new VirtualClock(), new VirtualClock()];
  const [a, b] = clocks.map((c) => new ResumeSessions(store, journal, c, GRACE, log, true));
  return { store, clocks, a: a!, b: b! };
}

const session = (id: string): Omit<StoredSession, 'detachedAt' | 'holder'> => ({
  id,
  api: 'voice',
  identity: '102@1001',
  tenantId: 1001,
  state: { sets: ['x'] },
});

describe('resume sessions shared by the nodes of a cluster', () => {
  test('a session detached on one node is claimed on another', async () => {
    const { store, a, b } = twoNodes();
    a.begin(session('s1'));
    a.detach('s1', { sets: ['y'] });
    await settle();
    assert.equal(b.claim('voice', 's1', '102@1001'), undefined, 'not before it was fetched');
    const fetched = await b.fetch('s1');
    assert.deepEqual(fetched?.state, { sets: ['y'] });
    assert.equal(b.claim('voice', 's1', '201@1002'), undefined, 'only by the same identity');
    assert.deepEqual(b.claim('voice', 's1', '102@1001')?.state, { sets: ['y'] });
    await settle();
    assert.equal(store.rows.get('s1')?.detachedAt, null, 'attached again, to B');
  });

  test('a node whose copy went stale does not delete the session another node took over', async () => {
    const { store, clocks, a, b } = twoNodes();
    a.begin(session('s2'));
    a.detach('s2', { sets: [] });
    await settle();
    await b.fetch('s2');
    b.claim('voice', 's2', '102@1001');
    await settle();
    clocks[0]!.advance(GRACE); // A's grace timer fires: it forgets its copy only
    await settle();
    assert.ok(store.rows.has('s2'));
    // B's socket closes in turn; its grace passes: now the session is gone.
    b.detach('s2', { sets: [] });
    clocks[1]!.advance(GRACE);
    await settle();
    assert.equal(store.rows.has('s2'), false);
  });

  test('a node that lets go of a socket after it was resumed elsewhere does not detach the session', async () => {
    // A's socket is resumed on B while A has not seen it close (or answers B's takeover after B
    // stopped waiting): B claims the session; A's close comes after.
    const { store, clocks, a, b } = twoNodes();
    a.begin(session('s6'));
    await settle();
    await b.fetch('s6');
    assert.ok(b.claim('voice', 's6', '102@1001'));
    await settle();
    a.update('s6', { sets: ['late'] });
    a.detach('s6', { sets: ['late'] });
    await settle();
    assert.equal(store.rows.get('s6')?.detachedAt, null, 'still attached, to B');
    assert.deepEqual(store.rows.get('s6')?.state, { sets: ['x'] }, "B's state, not A's");
    clocks[0]!.advance(GRACE); // A's grace would have passed: nothing of A's is left to fire
    await settle();
    assert.ok(store.rows.has('s6'), 'not removed under B');
    assert.equal(a.claim('voice', 's6', '102@1001'), undefined, 'A forgot its copy');
    // B goes on writing it.
    b.update('s6', { sets: ['b'] });
    await settle();
    assert.deepEqual(store.rows.get('s6')?.state, { sets: ['b'] });
  });

  test('a late write of a session the other node ended does not store it again', async () => {
    const { store, a, b } = twoNodes();
    a.begin(session('s7'));
    await settle();
    await b.fetch('s7');
    assert.ok(b.claim('voice', 's7', '102@1001'));
    b.end('s7'); // its resume failed there (the events were gone)
    await settle();
    a.detach('s7', { sets: ['late'] });
    await settle();
    assert.equal(store.rows.has('s7'), false);
  });

  test('a claim whose write failed is stored by the next write, not refused as another holder’s', async () => {
    const { store, a } = twoNodes();
    a.begin(session('s8'));
    a.detach('s8', { sets: [] });
    await settle();
    store.failPut = true;
    assert.ok(a.claim('voice', 's8', '102@1001'));
    await settle();
    assert.notEqual(store.rows.get('s8')?.detachedAt, null, 'the claim was not stored');
    a.update('s8', { sets: ['after'] });
    await settle();
    assert.equal(store.rows.get('s8')?.detachedAt, null);
    assert.deepEqual(store.rows.get('s8')?.state, { sets: ['after'] });
    a.update('s8', { sets: ['again'] });
    await settle();
    assert.deepEqual(store.rows.get('s8')?.state, { sets: ['again'] }, 'still held here');
  });

  test('a session stored as attached (its node died) counts as detached from the reconnect', async () => {
    const { store, clocks, b } = twoNodes();
    await store.put({ ...session('s3'), detachedAt: null, holder: 'gone' });
    const fetched = await b.fetch('s3');
    assert.equal(fetched?.detachedAt, clocks[1]!.now());
    assert.ok(b.claim('voice', 's3', '102@1001'));
  });

  test('a fetch forgets what the store no longer has, and what is past its grace', async () => {
    const { store, clocks, a } = twoNodes();
    a.begin(session('s4'));
    a.detach('s4', { sets: [] });
    await settle();
    store.rows.delete('s4');
    assert.equal(await a.fetch('s4'), undefined);
    assert.equal(a.claim('voice', 's4', '102@1001'), undefined);
    await store.put({ ...session('s5'), detachedAt: clocks[0]!.now() - GRACE, holder: null });
    assert.equal(await a.fetch('s5'), undefined);
  });

  test('at start a node holds no other node’s session, and removes only those past their grace', async () => {
    const { store, clocks } = twoNodes();
    const now = clocks[0]!.now();
    await store.put({ ...session('live'), detachedAt: null, holder: 'h1' });
    await store.put({ ...session('recent'), detachedAt: now - 1_000, holder: 'h2' });
    await store.put({ ...session('old'), detachedAt: now - GRACE - 1, holder: null });
    const c = new ResumeSessions(store, journal, clocks[0]!, GRACE, log, true);
    const before = followed.get(1001) ?? 0;
    await c.load();
    assert.deepEqual([...store.rows.keys()].sort(), ['live', 'recent']);
    assert.equal(followed.get(1001) ?? 0, before, 'nothing followed');
    assert.equal(c.claim('voice', 'recent', '102@1001'), undefined);
  });

  test("a node lets go of dead nodes' sessions on the server's clock, until it closes", async () => {
    const { store, clocks, a } = twoNodes();
    await a.load();
    assert.deepEqual(store.detachedOwn, [clocks[0]!.now()], 'its own earlier sessions, at start');
    clocks[0]!.advance(5_000);
    await a.releaseDead();
    assert.deepEqual(store.released, [[clocks[0]!.now(), GRACE]]);
    await a.close();
    await a.releaseDead();
    assert.equal(store.released.length, 1);
  });

  test('a node looks for them twice a grace period, at least every second and every minute', () => {
    assert.equal(releaseEveryMs(120_000), 60_000);
    assert.equal(releaseEveryMs(600_000), 60_000);
    assert.equal(releaseEveryMs(10_000), 5_000);
    assert.equal(releaseEveryMs(500), 1_000);
  });
});
