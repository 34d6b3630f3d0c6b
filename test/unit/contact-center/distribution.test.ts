import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ccWorld, queuedCall } from './world.js';

test('oldest waiting call first, to the agent idle longest; ties go to the lower extension', async () => {
  const w = await ccWorld();
  try {
    for (const ext of ['101', '102', '103']) w.cc.setAgentState(1001, ext, 'Break');
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.clock.advance(1_000);
    w.port.callQueued(queuedCall('2', w.clock.now()));
    assert.deepEqual(w.sw.log, [], 'nobody is Ready');
    // 102 was on the phone until t=2s; 103 has been idle since the start.
    w.sw.setLeg('102', '40', 'connected');
    w.cc.agentState(1001, '102');
    w.clock.advance(1_000);
    w.sw.dropLeg('102', '40');
    w.cc.agentState(1001, '102');
    w.sw.onQueue(1001, () => {
      w.cc.setAgentState(1001, '102', 'Ready');
      w.cc.setAgentState(1001, '103', 'Ready');
    });
    assert.deepEqual(w.sw.log, ['offer 1 103', 'offer 2 102']);
  } finally {
    await w.close();
  }
  const ties = await ccWorld();
  try {
    ties.port.callQueued(queuedCall('3', ties.clock.now()));
    assert.deepEqual(ties.sw.log, ['offer 3 101']);
  } finally {
    await ties.close();
  }
});

test('distribution runs once at the end of the turn, after every fact of the turn was heard', async () => {
  const w = await ccWorld();
  try {
    let offersSeenDuringFacts = 0;
    w.sw.onQueue(1001, () => {
      w.port.callQueued(queuedCall('1', w.clock.now()));
      w.port.callQueued(queuedCall('2', w.clock.now()));
      offersSeenDuringFacts = w.sw.log.length;
    });
    assert.equal(offersSeenDuringFacts, 0, 'nothing is heard while the command runs');
    assert.deepEqual(w.sw.log, ['offer 1 101', 'offer 2 102']);
    const names = w.events.filter((e) => e.category === 'call').map((e) => e.name);
    assert.deepEqual(names, ['call_queued', 'call_queued', 'call_offered', 'call_offered']);
  } finally {
    await w.close();
  }
});

test('a phone that cannot take the offer is skipped; the call waits when nobody can', async () => {
  const w = await ccWorld();
  try {
    w.sw.failOffersTo = new Set(['101', '102', '103']);
    w.port.callQueued(queuedCall('1', w.clock.now()));
    assert.deepEqual(w.sw.log, []);
    assert.equal(w.cc.liveCall(1001, '1')!.status, 'waiting');
    assert.equal(w.cc.queueStats(1001, '500').waiting, 1);
  } finally {
    await w.close();
  }
});
