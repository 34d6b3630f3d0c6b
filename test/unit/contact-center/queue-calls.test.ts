import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld, queuedCall } from './world.js';

test('a queued call is a new contact-center call; queued again elsewhere it is the same call, redirected', async () => {
  const w = await ccWorld();
  try {
    for (const ext of ['101', '102', '103', '104']) w.cc.setAgentState(1001, ext, 'Break');
    const at = w.clock.now();
    w.port.callQueued(queuedCall('1', at));
    const c = w.cc.liveCall(1001, '1')!;
    assert.deepEqual(
      [c.direction, c.status, c.acdExt, c.calling.number, c.called.name],
      ['in', 'waiting', '500', '+15551230001', 'Sales'],
    );
    w.clock.advance(3_000);
    w.cc.waitRedirect(1001, '1', w.directory.extension(1001, '501')!.uuid);
    assert.equal(w.cc.liveCall(1001, '1')!.status, 'left');
    w.port.callQueued(queuedCall('1', w.clock.now(), '501'));
    const again = w.cc.liveCall(1001, '1')!;
    assert.equal(again.acdExt, '501');
    assert.equal(again.status, 'waiting');
    assert.deepEqual(
      again.timeline.map((t) => t.type),
      ['inbound', 'called', 'redirected', 'redirected', 'called'],
    );
    assert.equal(w.cc.liveCalls(1001).length, 1);
  } finally {
    await w.close();
  }
});

test('answered: the call leaves the queue connected to the agent, whose recording type applies', async () => {
  const w = await ccWorld();
  try {
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.clock.advance(2_000);
    w.sw.setLeg('101', '1', 'connected');
    w.port.offerAnswered('1', '101', w.clock.now());
    const c = w.cc.liveCall(1001, '1')!;
    assert.deepEqual([c.status, c.agentExt, c.agentName, c.waitMs], ['connected', '101', 'Bob Brown', 2_000]);
    assert.equal(c.isRecording, true, '101 is Mandatory');
    const a = w.cc.agentState(1001, '101');
    assert.deepEqual(
      [a.queueState, a.queueCallId, a.queueExt, a.phoneState],
      ['Connected', '1', '500', 'Talking'],
    );
    // An answer for a call the contact center does not know changes nothing.
    w.port.offerAnswered('77', '102', w.clock.now());
    assert.equal(w.cc.agentState(1001, '102').queueState, 'None');
  } finally {
    await w.close();
  }
});

test('finish is idempotent and frees the agent; the end of a waiting call reads so', async () => {
  const w = await ccWorld();
  try {
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.sw.dropLeg('101', '1');
    w.port.callEnded('1', w.clock.now());
    w.port.callEnded('1', w.clock.now());
    const ended = w.events.filter((e) => e.name === 'call_ended');
    assert.equal(ended.length, 1);
    const rec = w.cc.recordDetails('1')!;
    assert.equal(rec.timeline.at(-1)!.text, 'Disconnected while waiting (caller hung up)');
    assert.equal(w.cc.agentState(1001, '101').queueState, 'None');
    assert.equal(w.cc.liveCall(1001, '1'), undefined);
  } finally {
    await w.close();
  }
});
