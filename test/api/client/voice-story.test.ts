// The CTI story of test/api/voice/story.test.ts, told through @switchboard/client instead of a
// generic HAL library: every address from a link, events through the client's socket.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  embedded,
  findLink,
  type Hal,
  VoiceClient,
  type VoiceEvent,
  type VoiceEventStream,
} from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import * as frames from '../voice/story-frames.js';
import { simAnswer } from '../voice/voice-helpers.js';

let s: TestServer;
const clients: VoiceClient[] = [];
before(async () => {
  s = await startTestServer();
});
after(async () => {
  for (const c of clients) await c.close();
  await s.stop();
});

function voice(username: string): VoiceClient {
  const c = new VoiceClient({ url: s.httpUrl, username, password: '1234' });
  clients.push(c);
  return c;
}

type Frame = Record<string, unknown>;

/** Frames without the parts that vary per run, for exact comparison. */
// The client resumes by default (docs/events.md), so each frame also carries its sequence, a
// positive integer; the resume suites test its order.
const shape = (f: VoiceEvent) => {
  const { timestamp, version, subscriptionSetId: _, sequence, ...rest } = f as unknown as Frame;
  assert.match(String(timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  assert.equal(version, 'v1');
  assert.equal(typeof rest.callId, 'number');
  assert.ok(Number.isInteger(sequence) && (sequence as number) > 0, `sequence ${String(sequence)}`);
  return rest;
};

/** Collects the stream's events; `after(n, k)` waits for k more beyond the first n, then checks no more came. */
function collect(stream: VoiceEventStream) {
  const frames: VoiceEvent[] = [];
  let wake: (() => void) | undefined;
  stream.on('event', (e) => {
    frames.push(e);
    wake?.();
  });
  return {
    frames,
    async after(before: number, n: number): Promise<VoiceEvent[]> {
      const deadline = Date.now() + 3000;
      while (frames.length < before + n && Date.now() < deadline) {
        await new Promise<void>((r) => {
          wake = r;
          setTimeout(r, 50);
        });
      }
      await new Promise((r) => setTimeout(r, 30));
      const got = frames.slice(before);
      assert.equal(got.length, n, `expected ${n} frames, got ${JSON.stringify(got)}`);
      return got;
    },
  };
}

describe('a CTI story over links only (@switchboard/client)', () => {
  test('list, socket, subscribe, click-to-call, hold/resume, transfer, park/retrieve, hang up', async () => {
    const alice = voice('100@1001');
    const bob = voice('101@1001');
    const carol = voice('102@1001');

    // 1. List extensions (with their phones).
    assert.equal((await alice.root()).tenantId, 1001);
    const extensions = await alice.follow('v1:extensions', { expand: 'phones' });
    const ext = new Map(
      embedded<{ extension: string }>(extensions, 'extensions').map((e) => [e.extension, e as Hal]),
    );
    assert.deepEqual(
      [...ext.keys()],
      ['100', '101', '102', '103', '104', '105', '150', '500', '501', '600', '700'],
    );
    const phoneOf = (n: string) => embedded<{ phoneId: string }>(ext.get(n)!, 'phones')[0]!.phoneId;
    const [bobPhone, carolPhone, danPhone] = [phoneOf('101'), phoneOf('102'), phoneOf('103')];

    // 2. Open the socket at the address the root gives; 3. a subscription set; 4. two users.
    const stream = await alice.events();
    const sock = collect(stream);
    const set = await stream.subscribe({ calls: ['101@1001', '102@1001'] });
    const setId = set.id;
    assert.deepEqual(await set.eventAccounts('calls'), ['101@1001', '102@1001']);

    // 5. Click to call from 101 to 102; Carol's phone answers through the simulator.
    const call1 = await bob.calls.make({ from: '101@1001', to: '102' });
    const c1 = await bob.calls.get(call1.callId);
    const bobLeg1 = Number(c1.callId);
    const smdr1 = c1.smdrCallId;
    const carolList = await carol.calls.list();
    const carolLeg = Number(carolList[0]!.callId);
    const carolCall = carolList[0]!.callId;
    assert.equal(carolList[0]!.smdrCallId, smdr1);
    let f = await sock.after(0, 4);
    assert.deepEqual(f.map(shape), frames.dialed({ bobLeg1, carolLeg, smdr1, bobPhone, carolPhone }));
    assert.ok(f.every((x) => x.subscriptionSetId === setId));

    await simAnswer(s, carolPhone);
    f = await sock.after(4, 2);
    assert.deepEqual(f.map(shape), frames.answered({ bobLeg1, carolLeg, smdr1, carolPhone }));
    const connected = await bob.calls.resource(call1.callId);
    assert.equal(connected.callState, 'connected');
    assert.deepEqual(connected.callParties, [
      { PartyId: '101@1001', PartyName: 'Bob Brown' },
      { PartyId: '102@1001', PartyName: 'Carol Chen' },
    ]);
    assert.ok(findLink(connected, 'v1options:callRequest'));

    // 6a. Hold and resume.
    await bob.calls.hold(call1.callId, '101@1001');
    f = await sock.after(6, 2);
    assert.deepEqual(f.map(shape), frames.held({ bobLeg1, carolLeg, smdr1 }));
    assert.equal((await bob.calls.get(call1.callId)).callState, 'held');
    assert.equal((await carol.calls.get(carolCall)).callState, 'remoteHeld');
    await bob.calls.resume(call1.callId, '101@1001');
    f = await sock.after(8, 2);
    assert.deepEqual(f.map(shape), frames.resumed({ bobLeg1, carolLeg, smdr1 }));
    assert.equal((await bob.calls.get(call1.callId)).callState, 'connected');

    // 6b. Transfer: hold Carol, consult Dan, transfer Carol to Dan.
    await bob.calls.hold(call1.callId, '101@1001');
    const call2 = await bob.calls.make({ from: '101@1001', to: '103' });
    const c2 = await bob.calls.get(call2.callId);
    const bobLeg2 = Number(c2.callId);
    const smdr2 = c2.smdrCallId;
    await simAnswer(s, danPhone);
    f = await sock.after(10, 5);
    assert.deepEqual(
      f.map((x) => [x.event, x.observedParty, (x as unknown as Frame).callId]),
      [
        ['hold', '101@1001', bobLeg1],
        ['hold', '102@1001', carolLeg],
        ['dial', '101@1001', bobLeg2],
        ['ringback', '101@1001', bobLeg2],
        ['answer', '101@1001', bobLeg2],
      ],
    );
    assert.equal((await bob.calls.list()).length, 2);
    await bob.calls.transfer(call2.callId, '101@1001', String(bobLeg1));
    f = await sock.after(15, 4);
    assert.deepEqual(f.map(shape), frames.transferred({ bobLeg1, bobLeg2, carolLeg, smdr1, smdr2 }));
    assert.equal((await bob.calls.list()).length, 0);
    assert.equal((await carol.calls.get(carolCall)).callState, 'connected');

    // 6c. Carol parks Dan on PL2; Bob retrieves him.
    await carol.calls.park(carolCall, '102@1001', '2');
    f = await sock.after(19, 2);
    assert.deepEqual(f.map(shape), frames.parked({ carolLeg, smdr1 }));
    const pl2 = await alice.status.parkLocation('PL2@1001');
    assert.equal(pl2.state, 'busy');
    assert.equal(pl2.parkedParty, '103@1001');
    const retrieved = await bob.calls.retrieveParked({
      from: '101@1001',
      featureData: '2',
      deviceId: bobPhone,
    });
    const r = await bob.calls.get(retrieved.callId);
    const bobLeg3 = Number(r.callId);
    f = await sock.after(21, 2);
    const smdr3 = r.smdrCallId;
    assert.deepEqual(f.map(shape), frames.retrieved({ bobLeg3, smdr3, bobPhone }));
    assert.equal((await alice.status.parkLocation('PL2@1001')).state, 'idle');
    assert.equal(r.callState, 'connected');

    // 7. Hang up: the answer is the Call, ended.
    const hung = await bob.calls.hangup(retrieved.callId);
    assert.equal(hung.callState, 'ended');
    assert.equal(hung.callId, String(bobLeg3));
    f = await sock.after(23, 1);
    assert.deepEqual(f.map(shape), frames.hungUp({ bobLeg3, smdr3 }));
    assert.equal((await bob.calls.list()).length, 0);
    assert.equal((await carol.calls.list()).length, 0);
  });
});
