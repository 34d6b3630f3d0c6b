import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, Client, type Resource, type State } from 'ketting';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import * as frames from './story-frames.js';
import { type EventSocket, openSocket, simAnswer } from './voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

/** A real third-party HAL client per user; every address comes from a link, starting at /api. */
function halClient(user: string, pin: string): { client: Client; root: Resource } {
  const client = new Client(s.httpUrl);
  client.use(basicAuth(user, pin));
  return { client, root: client.go('/api') };
}

type Frame = Record<string, unknown>;

/** Frames without the parts that vary per run, for exact comparison. */
const shape = (f: Frame) => {
  const { timestamp, version, subscriptionSetId, ...rest } = f;
  assert.match(String(timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  assert.equal(version, 'v1');
  assert.equal(typeof rest.callId, 'number');
  return rest;
};

async function framesAfter(sock: EventSocket, before: number, n: number): Promise<Frame[]> {
  await sock.waitFor(before + n);
  await new Promise((r) => setTimeout(r, 30));
  const got = sock.frames.slice(before);
  assert.equal(got.length, n, `expected ${n} frames, got ${JSON.stringify(got)}`);
  return got;
}

describe('a CTI story over links only (ketting)', () => {
  test('list, socket, subscribe, click-to-call, hold/resume, transfer, park/retrieve, hang up', async () => {
    const alice = halClient('100@1001', '1234');
    const bob = halClient('101@1001', '1234');
    const carol = halClient('102@1001', '1234');

    // 1. List extensions (with their phones).
    const aliceRoot: State = await alice.root.get();
    assert.equal(aliceRoot.data.tenantId, 1001);
    const aliceV1 = alice.root.follow('api:v1');
    const extensions = await (await aliceV1.follow('v1:extensions', { expand: 'phones' })).get();
    const ext = new Map(extensions.getEmbedded().map((e) => [e.data.extension as string, e]));
    assert.deepEqual(
      [...ext.keys()],
      ['100', '101', '102', '103', '104', '105', '150', '500', '501', '600', '700'],
    );
    const phoneOf = (n: string) => (ext.get(n)!.getEmbedded()[0].data as { phoneId: string }).phoneId;
    const [bobPhone, carolPhone, danPhone] = [phoneOf('101'), phoneOf('102'), phoneOf('103')];

    // 2. Open the socket at the address the root gives.
    const wsHref = aliceRoot.links.get('api:createWebsocket')!.href;
    const sock = await openSocket(s, '100@1001:1234', wsHref);

    // 3. Create a subscription set; 4. subscribe two users.
    const sets = await aliceV1.follow('v1:eventSubscriptionSets', { webSocketId: sock.id });
    const setState = await sets.post({ data: {} });
    const setId = setState.data.subscriptionSetId as string;
    const callSubs = await setState.follow('v1:callEventSubscriptions');
    await callSubs.put({ data: { eventAccounts: ['101@1001', '102@1001'] } });
    const subscribed = await callSubs.refresh();
    assert.deepEqual(
      subscribed.getEmbedded().map((e) => e.data.accountId),
      ['101@1001', '102@1001'],
    );

    // 5. Click to call from 101 to 102; Carol's phone answers through the simulator.
    const bobCalls = await bob.root.follow('api:v1').follow('v1:activeCalls');
    const call1 = await bobCalls.postFollow({ data: { from: '101@1001', to: '102' } });
    const c1 = await call1.get();
    const bobLeg1 = Number(c1.data.callId);
    const smdr1 = c1.data.smdrCallId as string;
    const carolCalls = await carol.root.follow('api:v1').follow('v1:activeCalls');
    const carolList = await carolCalls.get();
    const [carolCall] = await carolCalls.followAll('calls');
    const carolLeg = Number(carolList.getEmbedded()[0].data.callId);
    assert.equal(carolList.getEmbedded()[0].data.smdrCallId, smdr1);
    let f = await framesAfter(sock, 0, 4);
    assert.deepEqual(f.map(shape), frames.dialed({ bobLeg1, carolLeg, smdr1, bobPhone, carolPhone }));
    assert.ok(f.every((x) => x.subscriptionSetId === setId));

    await simAnswer(s, carolPhone);
    f = await framesAfter(sock, 4, 2);
    assert.deepEqual(f.map(shape), frames.answered({ bobLeg1, carolLeg, smdr1, carolPhone }));
    const connected = await call1.refresh();
    assert.equal(connected.data.callState, 'connected');
    assert.deepEqual(connected.data.callParties, [
      { PartyId: '101@1001', PartyName: 'Bob Brown' },
      { PartyId: '102@1001', PartyName: 'Carol Chen' },
    ]);
    assert.ok(connected.links.get('v1options:callRequest'));

    // 6a. Hold and resume.
    await call1.post({ data: { callRequest: 'holdCall', myPartyId: '101@1001' } });
    f = await framesAfter(sock, 6, 2);
    assert.deepEqual(f.map(shape), frames.held({ bobLeg1, carolLeg, smdr1 }));
    assert.equal((await call1.refresh()).data.callState, 'held');
    assert.equal((await carolCall.refresh()).data.callState, 'remoteHeld');
    await call1.post({ data: { callRequest: 'resumeHeldCall', myPartyId: '101@1001' } });
    f = await framesAfter(sock, 8, 2);
    assert.deepEqual(f.map(shape), frames.resumed({ bobLeg1, carolLeg, smdr1 }));
    assert.equal((await call1.refresh()).data.callState, 'connected');

    // 6b. Transfer: hold Carol, consult Dan, transfer Carol to Dan.
    await call1.post({ data: { callRequest: 'holdCall', myPartyId: '101@1001' } });
    const call2 = await bobCalls.postFollow({ data: { from: '101@1001', to: '103' } });
    const c2 = await call2.get();
    const bobLeg2 = Number(c2.data.callId);
    const smdr2 = c2.data.smdrCallId as string;
    await simAnswer(s, danPhone);
    f = await framesAfter(sock, 10, 5);
    assert.deepEqual(
      f.map((x) => [x.event, x.observedParty, x.callId]),
      [
        ['hold', '101@1001', bobLeg1],
        ['hold', '102@1001', carolLeg],
        ['dial', '101@1001', bobLeg2],
        ['ringback', '101@1001', bobLeg2],
        ['answer', '101@1001', bobLeg2],
      ],
    );
    assert.equal((await bobCalls.refresh()).getEmbedded().length, 2);
    await call2.post({
      data: { callRequest: 'transfer', myPartyId: '101@1001', otherCallId: String(bobLeg1) },
    });
    f = await framesAfter(sock, 15, 4);
    assert.deepEqual(f.map(shape), frames.transferred({ bobLeg1, bobLeg2, carolLeg, smdr1, smdr2 }));
    assert.equal((await bobCalls.refresh()).getEmbedded().length, 0);
    const carolTransferred = await carolCall.refresh();
    assert.equal(carolTransferred.data.callState, 'connected');

    // 6c. Carol parks Dan on PL2; Bob retrieves him.
    await carolCall.post({ data: { callRequest: 'parkCall', myPartyId: '102@1001', featureData: '2' } });
    f = await framesAfter(sock, 19, 2);
    assert.deepEqual(f.map(shape), frames.parked({ carolLeg, smdr1 }));
    const pl2 = await (await aliceV1.follow('v1:parkLocationStatus', { accountId: 'PL2@1001' })).get();
    assert.equal(pl2.data.state, 'busy');
    assert.equal(pl2.data.parkedParty, '103@1001');
    const retrieved = await bobCalls.postFollow({
      data: {
        request: 'retrieveParkedCall',
        from: '101@1001',
        featureData: '2',
        deviceIdType: 'device',
        deviceId: bobPhone,
      },
    });
    const r = await retrieved.get();
    const bobLeg3 = Number(r.data.callId);
    f = await framesAfter(sock, 21, 2);
    const smdr3 = r.data.smdrCallId as string;
    assert.deepEqual(f.map(shape), frames.retrieved({ bobLeg3, smdr3, bobPhone }));
    assert.equal((await (await pl2.follow('self')).refresh()).data.state, 'idle');
    assert.equal(r.data.callState, 'connected');

    // 7. Hang up: the answer is the Call, ended.
    const hung = await retrieved.post({ data: { callRequest: 'hangupCall' } });
    assert.equal(hung.data.callState, 'ended');
    assert.equal(hung.data.callId, String(bobLeg3));
    f = await framesAfter(sock, 23, 1);
    assert.deepEqual(f.map(shape), frames.hungUp({ bobLeg3, smdr3 }));
    assert.equal((await bobCalls.refresh()).getEmbedded().length, 0);
    assert.equal((await carolCalls.refresh()).getEmbedded().length, 0);
    await sock.close();
  });
});
