import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callEndedFact, ccWorld, queuedCall } from './world.js';

test("every ended call becomes a durable record, with the contact center's details of its own calls", async () => {
  const w = await ccWorld();
  try {
    const start = w.clock.now();
    w.port.callQueued(queuedCall('1', start));
    w.sw.setLeg('101', '1', 'connected');
    w.port.offerAnswered('1', '101', w.clock.now());
    w.clock.advance(5_000);
    w.sw.dropLeg('101', '1');
    w.sw.tell(callEndedFact('1', start, w.clock.now()));
    w.sw.tell(callEndedFact('2', start, w.clock.now()));
    // Readable at once, before the store has it.
    const cc = w.cc.unwrittenRecord(1001, '1')!.data.cc as { status: string; timeline: { type: string }[] };
    assert.equal(cc.status, 'ended');
    assert.deepEqual(cc.timeline.map((t) => t.type).slice(-2), ['recording_stopped', 'disconnected']);
    assert.equal(w.cc.liveCall(1001, '1'), undefined);
    assert.equal(w.cc.unwrittenRecord(1002, '1'), undefined, "another tenant's id");
    await w.cc.recordsWritten();
    assert.deepEqual(w.cc.unwrittenRecords(1001), []);
    const stored = await w.callRecords.get(1001, '1');
    assert.deepEqual(stored!.data.cc, JSON.parse(JSON.stringify(cc)));
    const plain = await w.callRecords.get(1001, '2');
    assert.equal(plain!.outcome, 'Answered');
    assert.equal('cc' in plain!.data, false, 'a call the contact center did not hold has no details');
  } finally {
    await w.close();
  }
});

test('a record that cannot be written is reported and leaves memory', async () => {
  const w = await ccWorld();
  try {
    await w.db.close();
    w.sw.tell(callEndedFact('3', w.clock.now(), w.clock.now()));
    assert.equal(w.cc.unwrittenRecords(1001).length, 1);
    await w.cc.recordsWritten();
    assert.deepEqual(w.recordErrors, ['3']);
    assert.deepEqual(w.cc.unwrittenRecords(1001), []);
  } finally {
    await w.close().catch(() => {});
  }
});
