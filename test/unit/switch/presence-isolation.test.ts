import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { DeviceEvent, PhoneMessageEvent, PresenceEvent } from '../../../src/switch/types.js';
import { harness, PHONE } from './harness.js';

describe('presence', () => {
  test('registration drives available / unavailable, each change once', async () => {
    const h = await harness();
    assert.equal(h.sw.presence(1001, '101').reachability, 'available');
    h.sw.unregisterDevice(PHONE('101'));
    h.sw.unregisterDevice(PHONE('101'));
    assert.equal(h.sw.presence(1001, '101').reachability, 'unavailable');
    h.sw.registerDevice(PHONE('101'));
    h.sw.registerDevice(PHONE('101'));
    assert.deepEqual(h.presence('101@1001'), ['unavailable', 'available']);
    const devices = h.events.filter((e): e is DeviceEvent => e.type === 'device').map((e) => e.registered);
    assert.deepEqual(devices, [false, true]);
    assert.throws(() => h.sw.registerDevice('nope'), { code: 'DEVICE_NOT_FOUND' });
  });

  test('a second phone keeps the extension available', async () => {
    const h = await harness();
    await h.dir.put('device', { ...h.dir.device(PHONE('101'))!, id: 'ph1001-101b' });
    h.sw.unregisterDevice(PHONE('101'));
    assert.deepEqual(h.presence('101@1001'), []);
    h.sw.unregisterDevice('ph1001-101b');
    assert.deepEqual(h.presence('101@1001'), ['unavailable']);
  });

  test('unregistering the phone of a ringing call sends it to coverage', async () => {
    const h = await harness();
    h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.unregisterDevice(PHONE('102'));
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'forward', 'end']);
    assert.deepEqual(h.presence('102@1001'), ['busy', 'unavailable', 'idle']);
  });

  test('unregistering a phone ends its calls', async () => {
    const h = await harness();
    const caller = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.deviceAnswer(PHONE('102'));
    h.sw.unregisterDevice(PHONE('101'));
    assert.equal(h.sw.leg(caller.callObserverId)?.state, 'ended');
    assert.deepEqual(h.calls('102@1001'), ['offer', 'ringing', 'answer', 'end']);
  });

  test('busy / idle follow the calls of the account', async () => {
    const h = await harness();
    const first = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    const second = h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '103' });
    assert.equal(h.sw.presence(1001, '101').callActivity, 'busy');
    h.sw.callRequest({ tenantId: 1001, callObserverId: first.callObserverId, request: 'hangupCall' });
    assert.equal(h.sw.presence(1001, '101').callActivity, 'busy');
    h.sw.callRequest({ tenantId: 1001, callObserverId: second.callObserverId, request: 'hangupCall' });
    assert.deepEqual(h.presence('101@1001'), ['busy', 'idle']);
  });

  test('do not disturb, each change once', async () => {
    const h = await harness();
    h.sw.setDnd(1001, '101', true);
    h.sw.setDnd(1001, '101', true);
    assert.equal(h.sw.presence(1001, '101').dnd, 'dndOn');
    h.sw.setDnd(1001, '101', false);
    assert.deepEqual(h.presence('101@1001'), ['dndOn', 'dndOff']);
    assert.throws(() => h.sw.setDnd(1001, '500', true), { code: 'EXTENSION_NOT_FOUND' });
  });

  test('ACD sign-in: agents start signed in; the contact center signs them out and in', async () => {
    const h = await harness();
    assert.equal(h.sw.presence(1001, '101').acd, 'signedInAcd');
    assert.equal(h.sw.presence(1001, '105').acd, 'signedOutAcd');
    h.sw.setAcdSignedIn(1001, '101', false);
    h.sw.setAcdSignedIn(1001, '101', false);
    h.sw.setAcdSignedIn(1001, '101', true);
    assert.deepEqual(h.presence('101@1001'), ['signedOutAcd', 'signedInAcd']);
    h.sw.setAcdSignedIn(1001, '101', false);
    h.sw.resync();
    assert.equal(h.sw.presence(1001, '101').acd, 'signedOutAcd');
  });

  test('joining and leaving a group, from directory changes', async () => {
    const h = await harness();
    assert.deepEqual(h.sw.presence(1001, '101').groups, ['600@1001']);
    const g = h.dir.extension(1001, '600')!;
    await h.dir.put('extension', { ...g, group: { groupType: 'hunt', members: ['102', '103'] } });
    const events = h.events.filter((e): e is PresenceEvent => e.type === 'presence');
    assert.deepEqual(
      events.map((e) => [e.observed, e.name, e.groupJoined ?? e.groupLeft]),
      [
        ['103@1001', 'joinedGroup', '600@1001'],
        ['101@1001', 'leftGroup', '600@1001'],
      ],
    );
    assert.deepEqual(h.sw.presence(1001, '101').groups, []);
    assert.deepEqual(h.sw.presence(1001, '103').groups, ['600@1001']);
  });

  test('phone messages are delivered per device and kept for the simulator', async () => {
    const h = await harness();
    h.sw.sendMessage(1001, [PHONE('101'), PHONE('102')], 'Fire drill at 3', 'high');
    const msgs = h.events.filter((e): e is PhoneMessageEvent => e.type === 'phoneMessage');
    assert.deepEqual(
      msgs.map((m) => m.deviceId),
      [PHONE('101'), PHONE('102')],
    );
    const dev = h.sw.snapshot().devices.find((d) => d.deviceId === PHONE('101'))!;
    assert.equal(dev.messages[0].text, 'Fire drill at 3');
    assert.throws(() => h.sw.sendMessage(1001, [PHONE('200', 1002)], 'x', 'low'), {
      code: 'DEVICE_NOT_FOUND',
    });
  });
});

describe('tenant isolation', () => {
  test('no event of tenant 1002 reaches anything of tenant 1001', async () => {
    const h = await harness();
    const globex = h.sw.makeCall({ tenantId: 1002, fromExt: '200', to: '201' });
    h.sw.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
    h.sw.deviceAnswer(PHONE('201', 1002));
    h.sw.callRequest({
      tenantId: 1002,
      callObserverId: globex.callObserverId,
      request: 'parkCall',
      myExt: '200',
    });
    h.sw.makeCall({ tenantId: 1002, fromExt: '202', to: '102' });
    h.sw.setDnd(1002, '202', true);
    h.clock.advance(200_000);
    assert.ok(h.events.some((e) => e.tenantId === 1002));
    for (const e of h.events) {
      const observed = 'observed' in e ? e.observed : '';
      if (e.tenantId === 1002) assert.ok(!observed.endsWith('@1001'), JSON.stringify(e));
      if (observed.endsWith('@1001')) assert.equal(e.tenantId, 1001);
    }
    assert.deepEqual(h.calls('202@1002').slice(0, 2), ['dial', 'callError']);
    assert.ok(h.sw.legs(1002).every((l) => l.tenantId === 1002));
    assert.ok(h.sw.legs(1001).every((l) => l.tenantId === 1001));
    assert.throws(
      () =>
        h.sw.callRequest({ tenantId: 1001, callObserverId: globex.callObserverId, request: 'hangupCall' }),
      { code: 'CALL_NOT_FOUND' },
    );
    assert.throws(() => h.sw.retrieveParkedCall({ tenantId: 1001, fromExt: '101', parkLocation: 1 }), {
      code: 'PARK_LOCATION_IDLE',
    });
  });
});
