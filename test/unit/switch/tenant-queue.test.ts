import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TenantQueue } from '../../../src/switch/tenant-queue.js';

interface Ev {
  tenantId: number;
  n: string;
}

describe('TenantQueue', () => {
  test('effects are delivered after the outermost command, in the order they were produced', () => {
    const seen: string[] = [];
    const q: TenantQueue<Ev> = new TenantQueue<Ev>(
      (e) => {
        seen.push(e.n);
        // A subscriber reacting with a new command: its effects join the end of the outbox.
        if (e.n === 'a1') q.run(1, () => q.defer(1, { tenantId: 1, n: 'c1' }));
      },
      () => {},
    );
    const out = q.run(1, () => {
      q.defer(1, { tenantId: 1, n: 'a1' });
      q.run(1, () => q.defer(1, { tenantId: 1, n: 'b1' }));
      assert.deepEqual(seen, [], 'nothing is delivered while the command runs');
      q.defer(1, { tenantId: 1, n: 'a2' });
      return 42;
    });
    assert.equal(out, 42);
    assert.deepEqual(seen, ['a1', 'b1', 'a2', 'c1']);
  });

  test('tenants have their own lanes', () => {
    const seen: string[] = [];
    const q = new TenantQueue<Ev>(
      (e) => seen.push(e.n),
      () => {},
    );
    q.run(1, () => {
      q.defer(1, { tenantId: 1, n: 'one' });
      q.run(2, () => q.defer(2, { tenantId: 2, n: 'two' }));
      assert.deepEqual(seen, ['two']);
    });
    assert.deepEqual(seen, ['two', 'one']);
  });

  test('a failing subscriber is reported and does not stop delivery', () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const q = new TenantQueue<Ev>(
      (e) => {
        if (e.n === 'bad') throw new Error('boom');
        seen.push(e.n);
      },
      (e) => errors.push(e),
    );
    q.run(1, () => {
      q.defer(1, { tenantId: 1, n: 'bad' });
      q.defer(1, () => seen.push('callback'));
      q.defer(1, { tenantId: 1, n: 'ok' });
    });
    assert.deepEqual(seen, ['callback', 'ok']);
    assert.equal(errors.length, 1);
  });

  test('a command that throws still delivers what it produced before', () => {
    const seen: string[] = [];
    const q = new TenantQueue<Ev>(
      (e) => seen.push(e.n),
      () => {},
    );
    assert.throws(() =>
      q.run(1, () => {
        q.defer(1, { tenantId: 1, n: 'before' });
        throw new Error('refused');
      }),
    );
    assert.deepEqual(seen, ['before']);
  });

  test('work asked for when settled runs once the outbox is empty, still in the turn; its effects are delivered too', () => {
    const seen: string[] = [];
    const q: TenantQueue<Ev> = new TenantQueue<Ev>(
      (e) => {
        seen.push(`${e.n}${q.inTurn(1) ? '' : ' (out of turn)'}`);
        if (e.n === 'a') q.whenSettled(1, () => seen.push('settled'));
      },
      () => {},
    );
    assert.equal(q.inTurn(1), false);
    q.run(1, () => {
      q.defer(1, { tenantId: 1, n: 'a' });
      q.whenSettled(1, () => q.defer(1, { tenantId: 1, n: 'c' }));
      q.defer(1, { tenantId: 1, n: 'b' });
      assert.equal(q.inTurn(1), true);
      assert.equal(q.inTurn(2), false, 'another tenant');
    });
    assert.deepEqual(seen, ['a', 'b', 'c', 'settled']);
    assert.equal(q.inTurn(1), false);
    q.whenSettled(1, () => seen.push(`idle ${q.inTurn(1)}`));
    assert.equal(seen.at(-1), 'idle true', 'at once, as a turn, when the queue is idle');
  });
});
