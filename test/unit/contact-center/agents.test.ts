import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld } from './world.js';

test('agent states: a sign-out state signs out of every queue, an away state does not, Ready signs back in', async () => {
  const w = await ccWorld();
  try {
    w.cc.setAgentState(1001, '103', 'Lunch');
    assert.deepEqual(w.sw.log, []);
    w.cc.setAgentState(1001, '103', 'End of Shift');
    w.cc.setAgentState(1001, '103', 'ready');
    assert.deepEqual(w.sw.log, ['acd 1001 103 out', 'acd 1001 103 in']);
    const changes = w.events.filter((e) => e.name === 'agent_state_changed');
    assert.deepEqual(
      changes.map(
        (e) => e.category === 'agent' && e.name === 'agent_state_changed' && e.data.agent.agentState.name,
      ),
      ['Lunch', 'End of Shift', 'Ready'],
    );
    // 103 is in Sales and Support: each change republishes both queues' statistics.
    const stats = w.events.filter((e) => e.name === 'queue_statistics');
    assert.equal(stats.length, 6);
  } finally {
    await w.close();
  }
});

test('the same state again changes nothing; non-agents and unknown extensions are refused', async () => {
  const w = await ccWorld();
  try {
    w.cc.setAgentState(1001, '101', 'Ready');
    assert.deepEqual(w.events, []);
    assert.throws(() => w.cc.setAgentState(1001, '105', 'Ready'), /not an agent/);
    assert.throws(() => w.cc.agentState(1001, '999'), /not found/i);
    assert.throws(() => w.cc.setAgentState(1001, '101', ''), /name is required/);
  } finally {
    await w.close();
  }
});

test("phone state follows the agent's legs on the switch, read when asked", async () => {
  const w = await ccWorld();
  try {
    w.sw.setLeg('104', '7', 'held');
    assert.equal(w.cc.agentState(1001, '104').phoneState, 'Hold');
    w.sw.setLeg('104', '8', 'ringing');
    assert.equal(w.cc.agentState(1001, '104').phoneState, 'Hold');
    w.sw.setLeg('104', '9', 'connected');
    assert.equal(w.cc.agentState(1001, '104').phoneState, 'Talking');
    const phones = w.events.filter((e) => e.name === 'phone_state_changed');
    assert.deepEqual(
      phones.map((e) => e.category === 'agent' && e.name === 'phone_state_changed' && e.data.previous),
      ['Idle', 'Hold'],
    );
  } finally {
    await w.close();
  }
});
