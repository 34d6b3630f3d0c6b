import assert from 'node:assert/strict';
import { test } from 'node:test';
import { callEventFact, ccWorld, queuedCall } from './world.js';

test("hold and resume on the handling agent's leg count as hold time; another party's do not", async () => {
  const w = await ccWorld();
  try {
    w.port.callQueued(queuedCall('1', w.clock.now()));
    w.sw.setLeg('101', '1', 'connected');
    w.port.offerAnswered('1', '101', w.clock.now());
    w.sw.tell(callEventFact('hold', '101', '1', w.clock.now()));
    w.clock.advance(4_000);
    w.sw.tell(callEventFact('resume', '101', '1', w.clock.now()));
    w.sw.tell(callEventFact('hold', '105', '1', w.clock.now()));
    w.clock.advance(6_000);
    assert.equal(w.cc.liveCall(1001, '1')!.holdMs, 4_000);
  } finally {
    await w.close();
  }
});

test("any call event of an agent refreshes the agent's phone state; non-agents are not followed", async () => {
  const w = await ccWorld();
  try {
    w.sw.setLeg('104', '9', 'ringing');
    w.sw.setLeg('105', '9', 'connected');
    w.sw.tell(callEventFact('offer', '104', '9', w.clock.now()));
    w.sw.tell(callEventFact('answer', '105', '9', w.clock.now()));
    const phones = w.events.filter((e) => e.name === 'phone_state_changed');
    assert.equal(phones.length, 1);
    assert.ok(phones[0]!.category === 'agent');
    assert.deepEqual([phones[0]!.data.agent.ext, phones[0]!.data.agent.phoneState], ['104', 'Ringing']);
  } finally {
    await w.close();
  }
});

test('presence and other facts that do not concern the contact center are heard and ignored', async () => {
  const w = await ccWorld();
  try {
    w.sw.tell({ type: 'presence', name: 'busy', tenantId: 1001, observed: '101@1001', at: w.clock.now() });
    w.sw.tell({ type: 'device', tenantId: 1001, deviceId: 'x', registered: true, at: w.clock.now() });
    assert.deepEqual(w.events, []);
    assert.deepEqual(w.sw.errors, []);
  } finally {
    await w.close();
  }
});
