/**
 * The live-state journal: changes only mark; each tenant's marks become one batch, read as the
 * state then stands, written in order; an ended call's record goes with its row's removal; a
 * tenant this node does not own is never written.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LiveStateJournal, type LiveStateSource } from '../../../src/contact-center/live-state-journal.js';
import { StaleEpochError } from '../../../src/core/cluster.js';
import type { CallRecord } from '../../../src/store/call-records.js';
import type { Lease, LiveStateBatch, LiveStateStore } from '../../../src/store/live-state.js';

/** A store that keeps the batches; `hold` makes the next apply wait until released. */
function fakeStore() {
  const batches: LiveStateBatch[] = [];
  let gate: Promise<void> | undefined;
  let fail: Error | undefined;
  const store = {
    async apply(b: LiveStateBatch) {
      if (gate) await gate;
      if (fail) throw fail;
      batches.push(structuredClone(b));
    },
    async clear() {},
  } as unknown as LiveStateStore;
  return {
    store,
    batches,
    hold() {
      let release!: () => void;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = undefined;
        release();
      };
    },
    failWith(e: Error | undefined) {
      fail = e;
    },
  };
}

/** Live calls as a map the test changes; an agent is live when it has a state. */
function world() {
  const calls = new Map<string, { version: number; waiting: boolean; history?: string[] }>();
  const agents = new Map<string, string>();
  const source: LiveStateSource = {
    call(_t, id) {
      const c = calls.get(id);
      return (
        c && {
          smdrCallId: id,
          waiting: c.waiting,
          startedAt: 1,
          data: { version: c.version },
          history: c.history ?? [],
        }
      );
    },
    agent(_t, ext) {
      const s = agents.get(ext);
      return s === undefined ? undefined : { ext, data: { state: s } };
    },
    device: () => undefined,
  };
  return { calls, agents, source };
}

const record = (smdrCallId: string, tenantId = 1001): CallRecord => ({
  smdrCallId,
  tenantId,
  startedAt: 1,
  answeredAt: null,
  endedAt: 2,
  from: '101',
  to: '102',
  outcome: 'Unanswered',
  data: {},
});

function journal(lease: (t: number) => Lease | undefined = () => ({ nodeId: 'n', epoch: 3 })) {
  const s = fakeStore();
  const w = world();
  const errors: unknown[] = [];
  const j = new LiveStateJournal(s.store, {
    lease,
    now: () => 42,
    onError: (e) => errors.push(e),
    flushMs: 5,
  });
  j.setSource(w.source);
  return { j, s, w, errors };
}

describe('live state journal', () => {
  test('many changes of a call within the window are one row, as it stands when written', async () => {
    const { j, s, w } = journal();
    w.calls.set('c1', { version: 1, waiting: false });
    for (let i = 0; i < 10; i++) j.callChanged(1001, 'c1');
    w.calls.set('c1', { version: 2, waiting: true });
    j.agentChanged(1001, '101');
    w.agents.set('101', 'Break');
    assert.equal(s.batches.length, 0, 'nothing is written on the turn');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(s.batches.length, 1);
    const [b] = s.batches;
    assert.deepEqual(b!.lease, { nodeId: 'n', epoch: 3 });
    assert.equal(b!.at, 42);
    assert.deepEqual(b!.calls, [
      {
        smdrCallId: 'c1',
        waiting: true,
        startedAt: 1,
        data: { version: 2 },
        history: { from: 0, items: [] },
      },
    ]);
    assert.deepEqual(b!.agents, [{ ext: '101', data: { state: 'Break' } }]);
  });

  test('an ended call: its record and the removal of its row are one batch; the writer hears when it is written', async () => {
    const { j, s, w } = journal();
    w.calls.set('c1', { version: 1, waiting: false });
    j.callChanged(1001, 'c1');
    w.calls.delete('c1');
    let written = false;
    const p = j.write(record('c1')).then(() => (written = true));
    j.callChanged(1001, 'gone');
    await p;
    assert.equal(written, true);
    assert.equal(s.batches.length, 1);
    assert.deepEqual(s.batches[0]!.calls, [], 'no row is written for a call that ended');
    assert.deepEqual(
      s.batches[0]!.records.map((r) => r.smdrCallId),
      ['c1'],
    );
    assert.deepEqual(s.batches[0]!.removed, ['gone'], 'a call gone without a record loses its row');
  });

  test("a call's history: each batch writes what was added since the last; a failed batch, an ended call or a lost tenant start again from 0", async () => {
    const { j, s, w } = journal();
    const history = ['ring'];
    w.calls.set('c1', { version: 1, waiting: false, history });
    const step = async (...added: string[]) => {
      history.push(...added);
      j.callChanged(1001, 'c1');
      await j.flush();
      return s.batches.at(-1)!.calls[0]!.history;
    };
    assert.deepEqual(await step(), { from: 0, items: ['ring'] });
    assert.deepEqual(await step('answer', 'hold'), { from: 1, items: ['answer', 'hold'] });
    assert.deepEqual(await step(), { from: 3, items: [] }, 'a change without a step writes none');
    // After a failed batch what is stored is not known here: the next one replaces it.
    s.failWith(new Error('database away'));
    await step('resume');
    s.failWith(undefined);
    assert.deepEqual(await step(), { from: 0, items: ['ring', 'answer', 'hold', 'resume'] });
    // The tenant lost and taken back: what another owner stored is not this node's to add to.
    j.forget(1001);
    assert.deepEqual(await step('park'), { from: 0, items: ['ring', 'answer', 'hold', 'resume', 'park'] });
    // The call ends (its record); a new call under the same id starts from 0.
    j.callChanged(1001, 'c1');
    await Promise.all([j.write(record('c1')), j.flush()]);
    history.splice(0, history.length);
    assert.deepEqual(await step('ring again'), { from: 0, items: ['ring again'] });
  });

  test("a tenant's batches are written one after another; changes meanwhile form the next", async () => {
    const { j, s, w } = journal();
    const release = s.hold();
    w.calls.set('c1', { version: 1, waiting: false });
    j.callChanged(1001, 'c1');
    const first = j.flush();
    await new Promise((r) => setImmediate(r));
    w.calls.set('c1', { version: 2, waiting: false });
    j.callChanged(1001, 'c1');
    j.callChanged(1002, 'd1');
    w.calls.set('d1', { version: 1, waiting: false });
    const second = j.flush();
    release();
    await Promise.all([first, second]);
    const of1001 = s.batches.filter((b) => b.tenantId === 1001).map((b) => b.calls[0]?.data);
    assert.deepEqual(of1001, [{ version: 1 }, { version: 2 }], 'in order, each as it stood');
    assert.ok(s.batches.some((b) => b.tenantId === 1002));
  });

  test('a tenant this node does not own is not written; its records fail', async () => {
    const { j, s, w, errors } = journal((t) => (t === 1001 ? undefined : { nodeId: 'n', epoch: 1 }));
    w.calls.set('c1', { version: 1, waiting: false });
    j.callChanged(1001, 'c1');
    await assert.rejects(Promise.all([j.write(record('c1')), j.flush()]), /not owned by this node/);
    await j.flush();
    assert.equal(s.batches.length, 0);
    assert.equal(errors.length, 1);
  });

  test('a batch the fence refuses fails its records and is reported', async () => {
    const { j, s, errors } = journal();
    s.failWith(new StaleEpochError(1001, 3));
    await assert.rejects(j.write(record('c1')), StaleEpochError);
    assert.equal(errors.length, 1);
  });

  test('a batch the database failed is tried again, backing off, until it is written', async () => {
    const { j, s, w, errors } = journal();
    s.failWith(new Error('connection terminated'));
    w.calls.set('c1', { version: 1, waiting: false });
    w.agents.set('101', 'Break');
    j.callChanged(1001, 'c1');
    j.agentChanged(1001, '101');
    let written = false;
    const kept = j.write(record('c2')).then(() => (written = true));
    await j.flush();
    await new Promise((r) => setTimeout(r, 250)); // the first try and the one 100 ms after it
    assert.equal(written, false, 'the record waits; it is not failed');
    assert.ok(errors.length >= 2, `reported each time (${errors.length})`);
    const tries = errors.length;
    // A change meanwhile joins the batch that is tried next, not one of its own.
    w.calls.set('c3', { version: 1, waiting: false });
    j.callChanged(1001, 'c3');
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(errors.length, tries, 'the regular flush leaves a failing tenant to its retry');
    s.failWith(undefined);
    await kept;
    const [b] = s.batches;
    assert.equal(s.batches.length, 1);
    assert.deepEqual(
      [b!.calls.map((c) => c.smdrCallId).sort(), b!.agents.length, b!.records.map((r) => r.smdrCallId)],
      [['c1', 'c3'], 1, ['c2']],
    );
  });

  test('an error no retry mends fails the records at once; a reset gives up what still fails', async () => {
    const { j, s } = journal();
    s.failWith(Object.assign(new Error('duplicate key value'), { code: '23505' }));
    await assert.rejects(Promise.all([j.write(record('c1')), j.flush()]), /duplicate key/);
    s.failWith(new Error('connection terminated'));
    const given = assert.rejects(j.write(record('c2')), /no longer run here/);
    await j.flush(); // failed: to be tried again
    await j.clear(); // the reset: its world is gone, so is the record's
    await given;
  });

  test('a failed batch is given up once the lease it was made under is gone or changed', async () => {
    let lease: Lease | undefined = { nodeId: 'n', epoch: 3 };
    const { j, s } = journal(() => lease);
    s.failWith(new Error('connection terminated'));
    const lost = j.write(record('c1'));
    await j.flush();
    // Lost and taken back (a stall): the calls it had are not this epoch's to write.
    lease = { nodeId: 'n', epoch: 4 };
    s.failWith(undefined);
    await assert.rejects(lost, StaleEpochError);
    await j.flush();
    assert.equal(s.batches.length, 0, 'nothing of epoch 3 written under epoch 4');
    // And one whose lease went (the tenant is another node's now).
    lease = { nodeId: 'n', epoch: 4 };
    s.failWith(new Error('connection terminated'));
    const gone = j.write(record('c2'));
    await j.flush();
    lease = undefined;
    await assert.rejects(gone, /not owned by this node/);
  });

  test('forget drops what a lost tenant had not written; close writes what is pending, then takes nothing', async () => {
    const { j, s, w } = journal();
    w.calls.set('c1', { version: 1, waiting: false });
    j.callChanged(1001, 'c1');
    const lost = j.write(record('c2'));
    j.forget(1001);
    await assert.rejects(lost, /no longer run here/);
    j.callChanged(1002, 'c1');
    await j.close();
    assert.deepEqual(
      s.batches.map((b) => b.tenantId),
      [1002],
    );
    await assert.rejects(j.write(record('c3', 1002)), /closed/);
  });

  test('release writes what is pending under the lease that ended, then forgets the tenant', async () => {
    let owned = true;
    const { j, s, w, errors } = journal(() => (owned ? { nodeId: 'n', epoch: 3 } : undefined));
    w.agents.set('101', 'Break');
    j.agentChanged(1001, '101');
    const kept = j.write(record('c1'));
    owned = false; // the membership says so before its listeners hear it
    await j.release(1001, { nodeId: 'n', epoch: 3 });
    await kept;
    assert.deepEqual(
      s.batches.map((b) => [b.tenantId, b.lease, b.agents.length, b.records.length]),
      [[1001, { nodeId: 'n', epoch: 3 }, 1, 1]],
    );
    // Refused under the ended lease (another node holds the tenant): reported, records fail, nothing kept.
    s.failWith(new Error('stale'));
    j.agentChanged(1001, '101');
    const refused = j.write(record('c2'));
    await j.release(1001, { nodeId: 'n', epoch: 3 });
    await assert.rejects(refused, /stale/);
    assert.equal(errors.length, 1);
    s.failWith(undefined);
    await j.flush();
    assert.equal(s.batches.length, 1, 'nothing of the tenant is pending after its release');
  });
});
