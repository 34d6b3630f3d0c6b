import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ccWorld, queuedCall as queued } from './world.js';

describe('ACD distribution', () => {
  test('longest-idle Ready agent rings; no answer requeues and counts a miss; next agent answers', async () => {
    const w = await ccWorld();
    try {
      w.port.callQueued(queued('1', w.clock.now()));
      await w.settle();
      assert.deepEqual(w.sw.log, ['offer 1 101']);
      assert.equal(w.cc.agentState(1001, '101').phoneState, 'Ringing');
      assert.equal(w.cc.agentState(1001, '101').queueState, 'Offered');

      w.clock.advance(15_000);
      await w.settle();
      assert.deepEqual(w.sw.log, ['offer 1 101', 'withdraw 1 101 ringNoAnswer', 'offer 1 102']);
      assert.equal(w.cc.agentState(1001, '101').consecutiveMissed, 1);

      w.sw.setLeg('102', '1', 'connected');
      w.port.offerAnswered('1', '102', w.clock.now());
      await w.settle();
      const call = w.cc.liveCall(1001, '1')!;
      assert.equal(call.status, 'connected');
      assert.equal(call.agentExt, '102');
      assert.equal(call.waitMs, 15_000);
      // 102 is On Demand: no recording yet, suppressed until asked for.
      assert.equal(call.isRecording, false);
      assert.equal(call.isSuppressed, true);
      assert.equal(w.cc.agentState(1001, '102').phoneState, 'Talking');
      assert.equal(w.cc.agentState(1001, '102').queueState, 'Connected');

      w.clock.advance(5_000);
      w.cc.stopSuppression(1001, '1');
      assert.equal(w.cc.liveCall(1001, '1')!.isRecording, true);
      w.clock.advance(5_000);
      w.cc.startSuppression(1001, '1');
      assert.throws(() => w.cc.startSuppression(1001, '1'), /already suppressed/);

      w.sw.dropLeg('102', '1');
      w.port.callEnded('1', w.clock.now());
      const rec = w.cc.recordDetails('1')!;
      assert.equal(rec.status, 'ended');
      assert.deepEqual(
        rec.timeline.map((t) => t.type),
        [
          'inbound',
          'called',
          'offered',
          'no_answer',
          'offered',
          'answered',
          'recording_started',
          'suppression_stopped',
          'suppression_started',
          'recording_stopped',
          'disconnected',
        ],
      );
      assert.equal(rec.recordings.length, 1);
      assert.equal(rec.recordings[0].stopAt! - rec.recordings[0].startAt, 5_000);
      assert.deepEqual(
        rec.recordings[0].markers.map((m) => m.type),
        ['suppression_stop', 'suppression_start'],
      );
      assert.equal(w.cc.agentState(1001, '102').queueState, 'None');
      const names = w.events.map((e) => e.name);
      for (const n of [
        'call_queued',
        'call_offered',
        'call_not_answered',
        'call_answered',
        'call_ended',
        'queue_statistics',
        'phone_state_changed',
      ]) {
        assert.ok(names.includes(n as never), n);
      }
    } finally {
      await w.close();
    }
  });

  test('an agent whose phone cannot take the offer is skipped without events', async () => {
    const w = await ccWorld();
    try {
      w.sw.failOffersTo.add('101');
      w.port.callQueued(queued('8', w.clock.now()));
      await w.settle();
      assert.deepEqual(w.sw.log, ['offer 8 102']);
      const about101 = w.events.filter((e) => e.category === 'agent' && e.data.agent.ext === '101');
      assert.deepEqual(about101, []);
      assert.equal(w.cc.agentState(1001, '101').consecutiveMissed, 0);
    } finally {
      await w.close();
    }
  });

  test('Mandatory agent records at answer', async () => {
    const w = await ccWorld();
    try {
      w.port.callQueued(queued('7', w.clock.now()));
      await w.settle();
      w.sw.setLeg('101', '7', 'connected');
      w.port.offerAnswered('7', '101', w.clock.now());
      const c = w.cc.liveCall(1001, '7')!;
      assert.equal(c.isRecording, true);
      assert.equal(c.isSuppressed, false);
      assert.equal(c.recordings[0].ext, '101');
    } finally {
      await w.close();
    }
  });

  test('after maxMissed consecutive misses the agent goes away', async () => {
    const w = await ccWorld();
    try {
      // Only 101 is available.
      w.cc.setAgentState(1001, '102', 'Lunch');
      w.cc.setAgentState(1001, '103', 'Signed Out');
      assert.ok(w.sw.log.includes('acd 1001 103 out'));
      w.port.callQueued(queued('2', w.clock.now()));
      await w.settle();
      for (let i = 0; i < 3; i++) {
        w.clock.advance(15_000);
        await w.settle();
      }
      const s = w.cc.agentState(1001, '101');
      assert.equal(s.consecutiveMissed, 3);
      assert.deepEqual(s.agentState, { type: 'away', name: 'Lunch' });
      assert.equal(w.cc.queueStats(1001, '500').waiting, 1);
      assert.equal(w.cc.queueStats(1001, '500').longestWaitMs, 45_000);
      w.cc.setAgentState(1001, '101', 'ready');
      await w.settle();
      assert.equal(w.cc.agentState(1001, '101').consecutiveMissed, 0);
      assert.equal(w.sw.log.filter((l) => l === 'offer 2 101').length, 4);
    } finally {
      await w.close();
    }
  });

  test('wait_* act only on waiting calls', async () => {
    const w = await ccWorld();
    try {
      for (const ext of ['101', '102', '103']) w.cc.setAgentState(1001, ext, 'Break');
      w.port.callQueued(queued('3', w.clock.now()));
      w.port.callQueued(queued('4', w.clock.now()));
      w.port.callQueued(queued('5', w.clock.now()));
      await w.settle();
      const support = w.directory.extension(1001, '501')!;
      w.cc.waitRedirect(1001, '3', support.uuid);
      assert.ok(w.sw.log.includes('redirect 3 501'));
      assert.throws(() => w.cc.waitRedirect(1001, '4', 'nope'), /uuid of an ACD/);
      w.cc.waitTransfer(1001, '4', '+15550001111');
      assert.ok(w.sw.log.includes('redirect 4 +15550001111'));
      w.cc.waitKill(1001, '5');
      assert.ok(w.sw.log.includes('end 5 wait_kill'));
      assert.throws(() => w.cc.waitKill(1001, '4'), /not waiting/);
      assert.throws(() => w.cc.waitKill(1001, '999'), /not found/i);
    } finally {
      await w.close();
    }
  });

  test('unknown state names are refused; sign_out signs out, Ready signs back in', async () => {
    const w = await ccWorld();
    try {
      assert.throws(() => w.cc.setAgentState(1001, '101', 'Nap'), /Unknown agent state/);
      assert.throws(() => w.cc.agentState(1001, '105'), /not an agent/);
      w.cc.setAgentState(1001, '101', 'End of Shift');
      w.cc.setAgentState(1001, '101', 'Lunch');
      assert.deepEqual(w.sw.log, ['acd 1001 101 out', 'acd 1001 101 in']);
    } finally {
      await w.close();
    }
  });

  test('dial goes through the outbound queue and counts texts', async () => {
    const w = await ccWorld();
    try {
      const oq = w.directory.outboundQueues(1001)[0];
      const c = w.cc.dial(1001, '101', '+15550002222', oq.id);
      assert.equal(c.direction, 'out');
      assert.deepEqual(w.sw.log, ['make 101 +15550002222 +15555550150']);
      assert.throws(() => w.cc.dial(1001, '101', '+1555', 'x'), /outbound queue/);
      await w.cc.countTextMessage(1001, 'in', 'sms');
      await w.cc.countTextMessage(1001, 'in', 'sms');
      await w.cc.countTextMessage(1001, 'out', 'mms');
      assert.deepEqual(await w.cc.textCounts(1001), { out_sms: 0, out_mms: 1, in_sms: 2, in_mms: 0 });
      await w.cc.resetTextCounts(1001);
      assert.deepEqual(await w.cc.textCounts(1001), { out_sms: 0, out_mms: 0, in_sms: 0, in_mms: 0 });
    } finally {
      await w.close();
    }
  });
});
