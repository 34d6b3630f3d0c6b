import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callEventFact, ccWorld } from './world.js';

test("click to call: the queue's caller id, the agent's phone first; connected when the far end answers", async () => {
  const w = await ccWorld();
  try {
    const oq = w.directory.outboundQueues(1001)[0]!;
    const c = w.cc.dial(1001, '101', ' +15550002222 ', oq.id);
    assert.deepEqual(w.sw.log, [`make 101 +15550002222 ${oq.callerId}`]);
    assert.deepEqual(
      [c.status, c.direction, c.calling.number, c.agentExt],
      ['dialing', 'out', oq.callerId, '101'],
    );
    // The agent's phone is Talking (dialing) before call_dialed goes out.
    const names = w.events.map((e) => e.name);
    assert.deepEqual(names, ['phone_state_changed', 'call_dialed']);
    const id = c.smdrCallId;
    // The agent's own answer (picking up their phone) does not connect the call.
    w.sw.tell(callEventFact('answer', '101', id, w.clock.now(), { answeringParty: '101@1001' }));
    assert.equal(w.cc.liveCall(1001, id)!.status, 'dialing');
    w.clock.advance(3_000);
    w.sw.tell(callEventFact('answer', '101', id, w.clock.now(), { answeringParty: '+15550002222' }));
    const connected = w.cc.liveCall(1001, id)!;
    assert.equal(connected.status, 'connected');
    assert.equal(connected.isRecording, true, "101 is Mandatory: recording from the far end's answer");
    assert.equal(connected.answeredAt, w.clock.now());
  } finally {
    await w.close();
  }
});

test('dial refuses a non-user extension, a bad target and an unknown outbound queue', async () => {
  const w = await ccWorld();
  try {
    const oq = w.directory.outboundQueues(1001)[0]!;
    assert.throws(() => w.cc.dial(1001, '500', '+15550002222', oq.id), /cannot dial/);
    assert.throws(() => w.cc.dial(1001, '101', 'call me', oq.id), /target must be a number/);
    assert.throws(() => w.cc.dial(1001, '101', '+15550002222', 'nope'), /outbound queue/);
    assert.deepEqual(w.sw.log, []);
  } finally {
    await w.close();
  }
});
