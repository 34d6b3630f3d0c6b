import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld, queuedCall } from './world.js';

test('a declined offer is a miss: the call waits again and goes to the next agent', async () => {
  const w = await ccWorld();
  try {
    w.port.callQueued(queuedCall('1', w.clock.now()));
    assert.deepEqual(w.sw.log, ['offer 1 101']);
    // A fact about an agent the call does not ring changes nothing.
    w.port.offerFailed('1', '103', 'rejected', w.clock.now());
    assert.equal(w.cc.agentState(1001, '103').consecutiveMissed, 0);
    w.sw.dropLeg('101', '1');
    w.port.offerFailed('1', '101', 'rejected', w.clock.now());
    assert.deepEqual(w.sw.log, ['offer 1 101', 'offer 1 102']);
    const a = w.cc.agentState(1001, '101');
    assert.equal(a.consecutiveMissed, 1);
    assert.equal(a.queueState, 'None');
    const miss = w.events.find((e) => e.name === 'call_not_answered')!;
    assert.ok(miss.category === 'call');
    assert.deepEqual([miss.data.agentExt, miss.data.reason], ['101', 'rejected']);
    // The declined offer's ring timer is gone: only 102's fires.
    w.clock.advance(15_000);
    assert.deepEqual(w.sw.log.slice(2), ['withdraw 1 102 ringNoAnswer', 'offer 1 103']);
  } finally {
    await w.close();
  }
});

test('maxMissed misses in a row move a Ready agent to the first away state', async () => {
  const w = await ccWorld();
  try {
    w.cc.setAgentState(1001, '102', 'Break');
    w.cc.setAgentState(1001, '103', 'Break');
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.clock.advance(15_000);
    w.clock.advance(15_000);
    assert.equal(w.cc.agentState(1001, '101').agentState.type, 'ready');
    w.clock.advance(15_000);
    const away = w.events.filter((e) => e.name === 'agent_state_changed').at(-1)!;
    assert.ok(away.category === 'agent' && away.name === 'agent_state_changed');
    assert.deepEqual([away.data.agent.agentState.name, away.data.reason], ['Lunch', 'missed calls']);
    assert.equal(w.sw.log.filter((l) => l.startsWith('offer')).length, 3);
  } finally {
    await w.close();
  }
});

test('an offer withdrawn because the call leaves the queue is not a miss', async () => {
  const w = await ccWorld();
  try {
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.cc.waitTransfer(1001, '1', '105');
    assert.deepEqual(w.sw.log, ['offer 1 101', 'withdraw 1 101 withdrawn', 'redirect 1 105']);
    const a = w.cc.agentState(1001, '101');
    assert.equal(a.consecutiveMissed, 0);
    assert.equal(a.queueState, 'None');
    assert.equal(a.phoneState, 'Idle');
    w.clock.advance(15_000);
    assert.equal(w.sw.log.length, 3, 'no ring timer left');
  } finally {
    await w.close();
  }
});
