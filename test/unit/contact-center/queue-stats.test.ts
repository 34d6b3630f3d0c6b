import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld, queuedCall } from './world.js';

test('queue statistics count waiting calls, the longest wait and the agents by state', async () => {
  const w = await ccWorld();
  try {
    w.cc.setAgentState(1001, '101', 'Lunch');
    w.cc.setAgentState(1001, '102', 'End of Shift');
    w.cc.setAgentState(1001, '103', 'Break');
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.clock.advance(4_000);
    w.port.callQueued(queuedCall('2', w.clock.now()));
    w.clock.advance(1_000);
    assert.deepEqual(w.cc.queueStats(1001, '500'), {
      tenantId: 1001,
      acdExt: '500',
      waiting: 2,
      longestWaitMs: 5_000,
      agentsSignedIn: 2,
      agentsReady: 0,
      agentsBusy: 0,
    });
    // The last queue_statistics published for Sales says what queueStats says then.
    const last = w.events.filter((e) => e.name === 'queue_statistics').at(-1)!;
    assert.ok(last.category === 'queue');
    assert.equal(last.data.stats.waiting, 2);
    assert.equal(last.data.stats.longestWaitMs, 4_000);
  } finally {
    await w.close();
  }
});

test('an agent offered a call or not idle on the phone counts as busy', async () => {
  const w = await ccWorld();
  try {
    w.sw.setLeg('103', '50', 'connected');
    w.port.callQueued(queuedCall('1', w.clock.now()));
    const s = w.cc.queueStats(1001, '500');
    assert.equal(s.agentsReady, 3);
    assert.equal(s.agentsBusy, 2, 'one offered the call, one talking');
  } finally {
    await w.close();
  }
});
