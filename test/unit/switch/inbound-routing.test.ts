import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CallEndedEvent, EmergencyEvent } from '../../../src/switch/types.js';
import { type Harness, harness, PHONE } from './harness.js';

const CALLER = '+15559871234';

async function didTo(h: Harness, number: string, ext: string): Promise<void> {
  await h.dir.put('did', { id: `did-test-${ext}`, tenantId: 1001, number, targetExt: ext });
}

describe('inbound PSTN calls', () => {
  test('to a DID of a user', async () => {
    const h = await harness();
    await didTo(h, '+15555550102', '102');
    const { pstnCallId } = h.sw.pstnCall({ from: CALLER, to: '+15555550102', callerName: 'Pat Caller' });
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing']);
    const offer = h.callEvents('102@1001')[0];
    assert.ok(offer.name === 'offer');
    assert.equal(offer.fields.from, CALLER);
    assert.equal(offer.fields.to, '+15555550102');
    assert.equal(offer.fields.callingName, 'Pat Caller');
    const [p] = h.sw.pstnCalls();
    assert.deepEqual(
      { id: p.pstnCallId, direction: p.direction, from: p.from, state: p.state },
      { id: pstnCallId, direction: 'inbound', from: CALLER, state: 'ringback' },
    );
    h.sw.deviceAnswer(PHONE('102'));
    assert.equal(h.sw.pstnCalls()[0].state, 'connected');
    h.sw.pstnHangup(pstnCallId);
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'answer', 'end']);
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.direction, 'in');
    assert.equal(record.outcome, 'Answered');
    assert.equal(record.from.number, CALLER);
    assert.deepEqual(
      record.segments.map((s) => s.kind),
      ['inbound', 'called', 'answered', 'disconnected'],
    );
  });

  test('an unknown DID is refused', async () => {
    const h = await harness();
    assert.throws(() => h.sw.pstnCall({ from: CALLER, to: '+15550000000' }), { code: 'NUMBER_NOT_FOUND' });
    assert.throws(() => h.sw.pstnCall({ from: 'nobody', to: '+15555550100' }), { code: 'INVALID_NUMBER' });
    assert.throws(() => h.sw.pstnAnswer('123'), { code: 'PSTN_CALL_NOT_FOUND' });
  });

  test('to a hunt group: members one after another, then the caller gives up', async () => {
    const h = await harness();
    await didTo(h, '+15555550600', '600');
    const { pstnCallId } = h.sw.pstnCall({ from: CALLER, to: '+15555550600' });
    assert.deepEqual(h.calls('600@1001'), ['offer']);
    assert.deepEqual(h.calls('101@1001'), ['offer', 'ringing']);
    assert.deepEqual(h.calls('102@1001'), []);
    const offer = h.callEvents('101@1001')[0];
    assert.ok(offer.name === 'offer');
    assert.equal(offer.fields.via, '600@1001');
    h.clock.advance(20_000);
    assert.deepEqual(h.calls('101@1001'), ['offer', 'ringing', 'end']);
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing']);
    h.sw.deviceAnswer(PHONE('102'));
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'answer']);
    assert.deepEqual(h.calls('600@1001'), ['offer', 'end']);
    h.sw.pstnHangup(pstnCallId);
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'answer', 'end']);
  });

  test('a hunt group skips busy members and ends with noAnswer when nobody answers', async () => {
    const h = await harness();
    h.sw.setDnd(1001, '101', true);
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '105', to: '600' });
    assert.deepEqual(h.calls('101@1001'), []);
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing']);
    h.clock.advance(20_000);
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'ended');
    assert.deepEqual(h.calls('105@1001'), ['dial', 'ringback', 'end']);
    assert.deepEqual(h.calls('600@1001'), ['offer', 'end']);
  });

  test('a broadcast group rings every member at once', async () => {
    const h = await harness();
    const g = h.dir.extension(1001, '600')!;
    await h.dir.put('extension', { ...g, group: { groupType: 'broadcast', members: ['101', '102', '103'] } });
    h.sw.makeCall({ tenantId: 1001, fromExt: '105', to: '600' });
    for (const m of ['101', '102', '103']) assert.deepEqual(h.calls(`${m}@1001`), ['offer', 'ringing']);
    h.sw.deviceAnswer(PHONE('103'));
    assert.deepEqual(h.calls('101@1001'), ['offer', 'ringing', 'end']);
    assert.deepEqual(h.calls('103@1001'), ['offer', 'ringing', 'answer']);
    const end = h.callEvents('101@1001').at(-1)!;
    assert.ok(end.name === 'end');
    assert.equal(end.fields.endReason, 'answeredElsewhere');
  });

  test('a rollover group rings the first available member until its ring time ends', async () => {
    const h = await harness();
    const g = h.dir.extension(1001, '600')!;
    await h.dir.put('extension', { ...g, group: { groupType: 'rollover', members: ['101', '102', '103'] } });
    h.sw.setDnd(1001, '101', true);
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '105', to: '600' });
    assert.deepEqual(h.calls('101@1001'), []);
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing']);
    const [ringing] = h.sw.legsOf(1001, '102');
    h.request(ringing.callObserverId, 'deflectCall', '102');
    assert.deepEqual(h.calls('103@1001'), ['offer', 'ringing'], 'a decline rolls over to the next member');
    h.clock.advance(20_000);
    assert.deepEqual(h.calls('103@1001'), ['offer', 'ringing', 'end']);
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'ended');
    assert.deepEqual(h.calls('105@1001'), ['dial', 'ringback', 'end']);
  });

  test('hanging up a ringing call declines it to coverage', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    const [ringing] = h.sw.legsOf(1001, '102');
    const ended = h.request(ringing.callObserverId, 'hangupCall');
    assert.equal(ended?.state, 'ended');
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'forward', 'end']);
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'connected');
    assert.deepEqual(h.calls('101@1001'), ['dial', 'ringback', 'forward', 'answer']);
  });

  test('to the auto attendant, then digits, then the ACD', async () => {
    const h = await harness();
    const { pstnCallId } = h.sw.pstnCall({ from: CALLER, to: '+15555550100' });
    assert.deepEqual(h.calls('700@1001'), ['offer', 'answer']);
    assert.equal(h.sw.pstnCalls()[0].state, 'connected');
    h.sw.pstnDigits(pstnCallId, '1');
    assert.deepEqual(h.calls('700@1001'), ['offer', 'answer', 'forward', 'end']);
    assert.deepEqual(h.calls('500@1001'), ['offer']);
    const forward = h.callEvents('700@1001')[2];
    assert.deepEqual(forward.fields, { forwardingParty: '700@1001', forwardTarget: '500@1001' });
    const [queued] = h.sw.queuedCalls(1001, '500');
    assert.equal(queued.state, 'queued');
    assert.equal(queued.queue, '500');
    assert.equal(queued.redirected, true);
    assert.equal(h.port.length, 1);
    const q = h.port[0];
    assert.ok(q.fn === 'callQueued');
    assert.equal(q.call.acdExt, '500');
    assert.equal(q.call.callerNumber, CALLER);
    assert.equal(q.call.callerLegId, queued.callObserverId);

    h.sw.offerQueuedCall(q.call.smdrCallId, '102');
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing']);
    assert.equal(h.sw.queuedCalls(1001).length, 1);
    h.sw.deviceAnswer(PHONE('102'));
    assert.deepEqual(h.sw.queuedCalls(1001), []);
    assert.deepEqual(h.calls('500@1001'), ['offer', 'end']);
    assert.deepEqual(
      h.port.map((p) => p.fn),
      ['callQueued', 'offerAnswered'],
    );
    h.sw.deviceHangup(PHONE('102'));
    assert.deepEqual(
      h.port.map((p) => p.fn),
      ['callQueued', 'offerAnswered', 'callEnded'],
    );
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.acd, '500');
    assert.deepEqual(
      record.segments.map((s) => s.kind),
      ['inbound', 'menu', 'menu', 'redirected', 'queued', 'offered', 'answered', 'disconnected'],
    );
  });

  test('the auto attendant repeats on an unknown digit and disconnects on time-out', async () => {
    const h = await harness();
    const { pstnCallId } = h.sw.pstnCall({ from: CALLER, to: '+15555550100' });
    h.clock.advance(9_000);
    h.sw.pstnDigits(pstnCallId, '7');
    h.clock.advance(9_000);
    assert.deepEqual(h.calls('700@1001'), ['offer', 'answer']);
    h.clock.advance(1_000);
    assert.deepEqual(h.calls('700@1001'), ['offer', 'answer', 'end']);
    assert.deepEqual(h.sw.pstnCalls(), []);
  });

  test('an internal phone can use the menu with DTMF too', async () => {
    const h = await harness();
    h.sw.deviceDial(PHONE('105'), '700');
    h.sw.deviceDigits(PHONE('105'), '2');
    assert.deepEqual(h.calls('105@1001'), ['dial', 'answer', 'forward']);
    assert.equal(h.sw.queuedCalls(1001, '501').length, 1);
  });
});

describe('the ACD port', () => {
  async function queued(h: Harness) {
    h.sw.pstnCall({ from: CALLER, to: '+15555550150' });
    const q = h.port.find((p) => p.fn === 'callQueued');
    assert.ok(q?.fn === 'callQueued');
    return q.call.smdrCallId;
  }

  test('ring no answer withdraws the offer; the caller keeps waiting', async () => {
    const h = await harness();
    const id = await queued(h);
    h.sw.offerQueuedCall(id, '101');
    assert.throws(() => h.sw.offerQueuedCall(id, '101'), { code: 'OFFER_EXISTS' });
    h.sw.withdrawOffer(id, '101', 'ringNoAnswer');
    assert.deepEqual(h.calls('101@1001'), ['offer', 'ringing', 'end']);
    assert.equal(h.sw.queuedCalls(1001, '500').length, 1);
    assert.throws(() => h.sw.withdrawOffer(id, '101', 'again'), { code: 'OFFER_NOT_FOUND' });
    h.clock.advance(60_000);
    assert.equal(h.sw.queuedCalls(1001, '500')[0].state, 'queued');
  });

  test('an agent deflecting the offer reports offerFailed', async () => {
    const h = await harness();
    const id = await queued(h);
    const leg = h.sw.offerQueuedCall(id, '102');
    h.request(leg.callObserverId, 'deflectCall', '102');
    assert.deepEqual(
      h.port.map((p) => p.fn),
      ['callQueued', 'offerFailed'],
    );
    assert.equal(h.sw.queuedCalls(1001).length, 1);
  });

  test('an unavailable agent cannot be offered a call', async () => {
    const h = await harness();
    const id = await queued(h);
    h.sw.unregisterDevice(PHONE('101'));
    assert.throws(() => h.sw.offerQueuedCall(id, '101'), { code: 'AGENT_UNAVAILABLE' });
    assert.throws(() => h.sw.offerQueuedCall('42', '101'), { code: 'CALL_NOT_FOUND' });
  });

  test('a waiting call can be redirected to an extension', async () => {
    const h = await harness();
    const id = await queued(h);
    h.sw.offerQueuedCall(id, '101');
    assert.throws(() => h.sw.redirectQueuedCall(id, 'nowhere'), { code: 'INVALID_TARGET' });
    h.sw.redirectQueuedCall(id, '105');
    assert.deepEqual(h.calls('101@1001'), ['offer', 'ringing', 'end']);
    assert.deepEqual(h.calls('500@1001'), ['offer', 'forward', 'end']);
    assert.deepEqual(h.calls('105@1001'), ['offer', 'ringing']);
    assert.deepEqual(h.sw.queuedCalls(1001), []);
    assert.throws(() => h.sw.redirectQueuedCall(id, '105'), { code: 'CALL_NOT_QUEUED' });
  });

  test('a waiting call can be sent to an outside number or killed; an abandon is reported', async () => {
    const h = await harness();
    const id = await queued(h);
    h.sw.redirectQueuedCall(id, '+15550001111');
    assert.equal(h.sw.pstnCalls().length, 2);
    h.sw.endCall(id, 'wait_kill');
    assert.deepEqual(h.sw.pstnCalls(), []);
    assert.equal(h.port.at(-1)?.fn, 'callEnded');

    const again = await (async () => {
      h.port.length = 0;
      return queued(h);
    })();
    const [p] = h.sw.pstnCalls();
    h.sw.pstnHangup(p.pstnCallId);
    assert.deepEqual(
      h.port.map((x) => x.fn),
      ['callQueued', 'callEnded'],
    );
    const record = h.events.filter((e): e is CallEndedEvent => e.type === 'callEnded').at(-1)!.record;
    assert.equal(record.smdrCallId, again);
    assert.equal(record.outcome, 'Abandoned');
  });

  test('commands sent from inside a port callback run after the current command', async () => {
    const h = await harness();
    const seen: string[] = [];
    h.sw.setFactListener((f) => {
      if (f.type !== 'acd') return;
      if (f.name === 'callQueued') {
        seen.push(`queued ${h.sw.leg(f.call.callerLegId)?.state}`);
        h.sw.offerQueuedCall(f.call.smdrCallId, '103');
        seen.push('offered');
      }
      if (f.name === 'offerAnswered') seen.push('answered');
      if (f.name === 'offerFailed') seen.push('failed');
      if (f.name === 'queueCallEnded') seen.push('ended');
    });
    h.sw.pstnCall({ from: CALLER, to: '+15555550150' });
    assert.deepEqual(seen, ['queued queued', 'offered']);
    const names = h.events
      .filter((e) => e.type === 'call')
      .map((e) => `${e.observed} ${e.type === 'call' && e.name}`);
    assert.deepEqual(names, ['500@1001 offer', '103@1001 offer', '103@1001 ringing']);
  });
});

describe('emergency calls', () => {
  for (const dialed of ['911', '9911', '112']) {
    test(`dialing ${dialed} raises the alert and goes out through the PSTN`, async () => {
      const h = await harness();
      const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '103', to: dialed });
      const alerts = h.events.filter((e): e is EmergencyEvent => e.type === 'emergency');
      assert.equal(alerts.length, 1);
      const { at: _at, ...alert } = alerts[0];
      assert.deepEqual(alert, {
        type: 'emergency',
        tenantId: 1001,
        observed: '103@1001',
        callObserverId: leg.callObserverId,
        smdrCallId: leg.smdrCallId,
        from: '103',
        to: dialed,
        siteId: 'site-1001-hq',
        siteName: 'Acme HQ',
      });
      const [out] = h.sw.pstnCalls();
      assert.equal(out.to, dialed === '9911' ? '911' : dialed);
      h.clock.advance(2000);
      assert.deepEqual(h.calls('103@1001'), ['dial', 'ringback', 'answer']);
    });
  }

  test('a tenant can configure its own emergency numbers', async () => {
    const h = await harness();
    const t = h.dir.tenant(1001)!;
    await h.dir.put('tenant', { ...t, emergencyNumbers: ['999'] });
    h.sw.makeCall({ tenantId: 1001, fromExt: '103', to: '999' });
    h.sw.makeCall({ tenantId: 1001, fromExt: '103', to: '911' });
    assert.equal(h.events.filter((e) => e.type === 'emergency').length, 1);
  });
});

describe('outside calls', () => {
  test('a busy outside number gives callError', async () => {
    const h = await harness();
    h.sw.setPstnNumber('+15550002222', { answer: 'auto', busy: true });
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '915550002222' });
    assert.equal(leg.state, 'ended');
    assert.deepEqual(h.calls('101@1001'), ['dial', 'callError', 'end']);
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.outcome, 'Busy');
  });

  test('a manual outside number rings until answered; its hang-up ends the call', async () => {
    const h = await harness();
    h.sw.setPstnNumber('5550003333', { answer: 'manual' });
    const leg = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '95550003333' });
    const [out] = h.sw.pstnCalls();
    assert.equal(out.to, '+15550003333');
    assert.equal(out.state, 'ringing');
    h.sw.pstnAnswer(out.pstnCallId);
    assert.equal(h.sw.leg(leg.callObserverId)?.state, 'connected');
    assert.deepEqual(h.callEvents('101@1001')[2].fields, {
      answeringParty: '+15550003333',
      answeringDeviceId: '+15550003333',
    });
    h.sw.pstnHangup(out.pstnCallId);
    assert.deepEqual(h.calls('101@1001'), ['dial', 'ringback', 'answer', 'end']);
    const record = h.events.find((e): e is CallEndedEvent => e.type === 'callEnded')!.record;
    assert.equal(record.direction, 'out');
  });
});
