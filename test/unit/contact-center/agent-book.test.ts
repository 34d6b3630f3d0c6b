import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AgentBook, type AgentRecord, snapshotAgent } from '../../../src/contact-center/agent-book.js';

/** What the snapshot was defined as: the record without `idleSince`, keys in the record's order. */
function bySpread(a: AgentRecord) {
  const { idleSince: _, ...rest } = a;
  return { ...rest };
}

describe('snapshotAgent', () => {
  test('is the record without idleSince, with the same keys in the same order', () => {
    const book = new AgentBook();
    const a = book.get(1001, '101', 5_000);
    a.idleSince = 4_000;
    const fresh = snapshotAgent(a);
    assert.deepStrictEqual(fresh, bySpread(a));
    assert.equal(JSON.stringify(fresh), JSON.stringify(bySpread(a)));
    assert.equal('idleSince' in fresh, false);

    // A queue state adds the queue's fields, also as undefined when it ends.
    a.queueState = 'Offered';
    a.queueExt = '150';
    a.queueCallId = '1000000000000007';
    assert.deepStrictEqual(snapshotAgent(a), bySpread(a));
    assert.deepStrictEqual(Object.keys(snapshotAgent(a)), Object.keys(bySpread(a)));
    a.queueExt = undefined;
    a.queueCallId = undefined;
    assert.deepStrictEqual(snapshotAgent(a), bySpread(a));
    assert.deepStrictEqual(Object.keys(snapshotAgent(a)), Object.keys(bySpread(a)));
  });

  test('is a copy: later changes of the record do not show in it', () => {
    const a = new AgentBook().get(1001, '102', 0);
    const s = snapshotAgent(a);
    a.consecutiveMissed = 3;
    assert.equal(s.consecutiveMissed, 0);
  });
});
