/**
 * The facade over the real switch: everything the contact center changes for a tenant happens in
 * that tenant's turn on the switch's queue, in order with the switch's facts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ContactCenter } from '../../../src/contact-center/contact-center.js';
import { CallRecordStore } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import { harness, PHONE } from '../switch/harness.js';

async function realWorld() {
  const h = await harness();
  const db = await openDatabase({ kind: 'sqlite', file: ':memory:' });
  /** Facts heard and contact-center events, in the order they happened. */
  const story: string[] = [];
  const outOfTurn: string[] = [];
  const cc = new ContactCenter({
    directory: h.dir,
    clock: h.clock,
    switch: h.sw,
    db,
    callRecords: new CallRecordStore(db),
    publish: (e) => {
      story.push(`cc ${e.name}`);
      if (!h.sw.inTurn(e.tenantId)) outOfTurn.push(e.name);
    },
  });
  h.sw.setFactListener((f) => {
    if (f.type === 'acd' || f.type === 'callEnded') story.push(`fact ${f.type === 'acd' ? f.name : f.type}`);
    cc.hear(f);
  });
  const close = async () => {
    await cc.recordsWritten();
    await db.close();
  };
  return { h, cc, story, outOfTurn, close };
}

test("a queue call's whole story happens in the tenant's turn, each step after the fact that caused it", async () => {
  const { h, cc, story, outOfTurn, close } = await realWorld();
  try {
    cc.setAgentState(1001, '103', 'Break');
    h.sw.pstnCall({ from: '+15551230001', to: '+15555550150' });
    const id = cc.liveCalls(1001)[0]!.smdrCallId;
    assert.equal(cc.agentState(1001, '101').queueState, 'Offered');
    h.clock.advance(15_000); // 101 does not answer; 102 is offered the call
    h.sw.deviceAnswer(PHONE('102'));
    cc.stopSuppression(1001, id);
    h.sw.deviceHangup(PHONE('102'));
    await cc.recordsWritten();

    assert.deepEqual(outOfTurn, [], 'every contact-center event was emitted in the tenant’s turn');
    const follows = (effect: string, cause: string) => {
      const i = story.indexOf(`cc ${effect}`);
      assert.ok(i > 0, effect);
      assert.ok(story.lastIndexOf(`fact ${cause}`, i) >= 0, `${effect} after ${cause}`);
      assert.equal(
        story.slice(story.lastIndexOf(`fact ${cause}`, i) + 1, i).filter((s) => s.startsWith('fact')).length,
        0,
      );
    };
    follows('call_queued', 'callQueued');
    follows('call_answered', 'offerAnswered');
    follows('call_ended', 'callEnded');
    const calls = story.filter((s) => /^cc (call_|recording|suppression)/.test(s));
    assert.deepEqual(calls, [
      'cc call_queued',
      'cc call_offered',
      'cc call_not_answered',
      'cc call_offered',
      'cc call_answered',
      'cc recording_started',
      'cc suppression_stopped',
      'cc recording_stopped',
      'cc call_ended',
    ]);
    const record = cc.unwrittenRecord(1001, id);
    assert.equal(record, undefined, 'written');
  } finally {
    await close();
  }
});

test('commands of the contact center run in the turn too: agent states, dial, kill', async () => {
  const { h, cc, outOfTurn, close } = await realWorld();
  try {
    cc.setAgentState(1001, '101', 'End of Shift');
    assert.equal(h.sw.presence(1001, '101').acd, 'signedOutAcd');
    const oq = h.dir.outboundQueues(1001)[0]!;
    const call = cc.dial(1001, '102', '+15550002222', oq.id);
    assert.equal(cc.agentState(1001, '102').phoneState !== 'Idle', true);
    cc.kill(1001, call.smdrCallId);
    assert.equal(cc.liveCall(1001, call.smdrCallId), undefined);
    assert.equal(cc.agentState(1001, '102').phoneState, 'Idle');
    assert.deepEqual(outOfTurn, []);
    assert.deepEqual(h.errors, []);
  } finally {
    await close();
  }
});
