import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { preferredNode, score } from '../../../src/cluster/rendezvous.js';

const tenants = Array.from({ length: 600 }, (_, i) => 1000 + i);

describe('rendezvous placement', () => {
  it('every node computes the same owner, whatever the order of the node list', () => {
    for (const t of tenants.slice(0, 50)) {
      assert.equal(preferredNode(t, ['a', 'b', 'c']), preferredNode(t, ['c', 'a', 'b']));
    }
  });

  it('spreads tenants evenly', () => {
    const nodes = ['n1', 'n2', 'n3'];
    const counts = new Map(nodes.map((n) => [n, 0]));
    for (const t of tenants) counts.set(preferredNode(t, nodes)!, counts.get(preferredNode(t, nodes)!)! + 1);
    for (const [n, c] of counts) assert.ok(c > 150 && c < 250, `${n} got ${c} of 600`);
  });

  it('a node joining takes only tenants it wins; the others stay put', () => {
    const before = tenants.map((t) => preferredNode(t, ['n1', 'n2', 'n3']));
    const after = tenants.map((t) => preferredNode(t, ['n1', 'n2', 'n3', 'n4']));
    let moved = 0;
    tenants.forEach((_, i) => {
      if (before[i] !== after[i]) {
        moved++;
        assert.equal(after[i], 'n4');
      }
    });
    assert.ok(moved > 100 && moved < 200, `${moved} of 600 moved (about a quarter expected)`);
  });

  it('a node leaving gives away only its own tenants', () => {
    tenants.forEach((t) => {
      const was = preferredNode(t, ['n1', 'n2', 'n3']);
      const now = preferredNode(t, ['n1', 'n3']);
      if (was !== 'n2') assert.equal(now, was);
    });
  });

  it('no node, no owner; scores are 32-bit and differ per node', () => {
    assert.equal(preferredNode(1001, []), undefined);
    const s = score('n1', 1001);
    assert.ok(Number.isInteger(s) && s >= 0 && s < 2 ** 32);
    assert.notEqual(score('n1', 1001), score('n2', 1001));
  });
});
