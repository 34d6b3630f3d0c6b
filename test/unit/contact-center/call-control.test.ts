import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld, queuedCall } from './world.js';

async function connectedTo(agent: string) {
  const w = await ccWorld();
  for (const ext of ['101', '102', '103']) if (ext !== agent) w.cc.setAgentState(1001, ext, 'Break');
  w.port.callQueued(queuedCall('1', w.clock.now()));
  w.sw.setLeg(agent, '1', 'connected');
  w.port.offerAnswered('1', agent, w.clock.now());
  return w;
}

test('suppression needs a connected, recorded call and alternates', async () => {
  const none = await connectedTo('103');
  try {
    assert.throws(() => none.cc.startSuppression(1001, '1'), /not recorded/);
  } finally {
    await none.close();
  }
  const w = await connectedTo('101');
  try {
    assert.throws(() => w.cc.stopSuppression(1001, '1'), /not suppressed/);
    w.cc.startSuppression(1001, '1');
    assert.equal(w.cc.liveCall(1001, '1')!.isSuppressed, true);
    w.cc.stopSuppression(1001, '1');
    assert.throws(() => w.cc.startSuppression(1001, '2'), /not found/i);
    assert.throws(() => w.cc.startSuppression(1002, '1'), /not found/i, "another tenant's id");
  } finally {
    await w.close();
  }
});

test('kill ends a contact-center call at once, freeing the agent; other calls are ended on the switch', async () => {
  const w = await connectedTo('102');
  try {
    w.cc.kill(1001, '1');
    assert.deepEqual(w.sw.log.slice(-1), ['end 1 kill']);
    const rec = w.cc.recordDetails('1')!;
    assert.equal(rec.status, 'ended');
    assert.equal(rec.timeline.at(-1)!.text, 'Disconnected (killed)');
    const a = w.cc.agentState(1001, '102');
    assert.deepEqual([a.phoneState, a.queueState], ['Idle', 'None']);
    // The agent's phone went idle before the queue state: the order the switch's facts would give.
    const agentEvents = w.events.filter((e) => e.category === 'agent').map((e) => e.name);
    assert.deepEqual(agentEvents.slice(-2), ['phone_state_changed', 'queue_state_changed']);
    // A call the contact center does not hold: ended through the switch if the tenant has it.
    w.sw.setLeg('104', '60', 'connected');
    w.cc.kill(1001, '60');
    assert.deepEqual(w.sw.log.slice(-1), ['end 60 kill']);
    assert.throws(() => w.cc.kill(1001, '61'), /not found/i);
  } finally {
    await w.close();
  }
});

test('wait_* refuse a connected call and bad targets; wait_kill ends a waiting call', async () => {
  const w = await connectedTo('101');
  try {
    assert.throws(() => w.cc.waitKill(1001, '1'), /not waiting/);
    assert.throws(() => w.cc.waitTransfer(1001, '1', '105'), /not waiting/);
    w.cc.setAgentState(1001, '101', 'Break');
    w.port.callQueued(queuedCall('2', w.clock.now()));
    assert.throws(() => w.cc.waitTransfer(1001, '2', 'abc'), /target must be/);
    assert.throws(
      () => w.cc.waitRedirect(1001, '2', w.directory.extension(1001, '101')!.uuid),
      /uuid of an ACD/,
    );
    w.cc.waitKill(1001, '2');
    assert.deepEqual(w.sw.log.slice(-1), ['end 2 wait_kill']);
    assert.equal(
      w.cc.recordDetails('2')!.timeline.at(-1)!.text,
      'Disconnected while waiting (killed while waiting)',
    );
  } finally {
    await w.close();
  }
});
