/**
 * Events across the nodes of a cluster (docs/cluster.md, "Events"): two in-process nodes on one
 * PostgreSQL schema and the real NATS JetStream, tenant 1001 owned by node A. What A's switch
 * and contact center raise reaches B's sockets as the same frames in the same order; a socket
 * resumes on B from a cursor it got on A; a webhook is delivered once, by the owner, and its
 * queue goes on with the next owner after a takeover; one with no delivery yet is given the
 * events raised since it was made; an owner whose lease another node took sends nothing.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { DEMO } from '../../src/directory/demo-ids.js';
import type { PresenceEvent } from '../../src/switch/types.js';
import { CcClient } from '../api/ccs/cc-client.js';
import { startReceiver, until } from '../api/voice/webhooks/receiver.js';
import { ADMIN, BOB, CAROL, getJson } from '../api/voice/voice-helpers.js';
import {
  assignEverywhere,
  cleanUp,
  clusterUnavailable,
  freshPgTarget,
  startNode,
  testBus,
  type TestNode,
  uniqueClusterName,
} from '../helpers/cluster-events.js';
import { drop, openCc, openVoice, type RecordingSocket, sequences } from '../helpers/resume.js';
import { StaticMembership } from '../helpers/static-membership.js';

const why = await clusterUnavailable();
const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true, webhookTimeoutMs: 500 };
const AGENT = DEMO.extensionUuid(1001, '103');

/** A voice socket of CAROL with one set on her calls and presence; `query` e.g. `?resume`. */
async function carolSocket(node: TestNode, query = '') {
  const sock = await openVoice(node, CAROL, query);
  const [first] = await sock.waitFor(1);
  const set = await getJson(node, `/api/v1/subscriptions/ws/${first!.webSocketId}/subscriptionsets`, CAROL, {
    method: 'POST',
  });
  assert.equal(set.status, 200);
  for (const link of ['v1:presenceEventSubscriptions', 'v1:callEventSubscriptions']) {
    const put = await getJson(node, set.body._links[link].href, CAROL, {
      method: 'PUT',
      json: { eventAccounts: ['102@1001'] },
    });
    assert.equal(put.status, 200);
  }
  return { sock, first: first!, setId: set.body.subscriptionSetId as string };
}

/** A contact-center socket of the tenant admin, connected (`resume` as the connect carries it). */
async function ccSocket(node: TestNode, resume?: unknown) {
  return openCc(node, (await CcClient.login(node, '100@1001')).token, resume);
}

/** The phone's state in the operator's list across tenants, as `node` answers it. */
async function listedState(node: TestNode, deviceId: string) {
  const list = await getJson(node, '/api/v1/devicestates', ADMIN);
  assert.equal(list.status, 200);
  const items = list.body._embedded.deviceStates as { deviceId: string; state: string }[];
  return items.find((d) => d.deviceId === deviceId)?.state;
}

/** The node's consumer of the event stream, to hold it (close) and start it again. */
const consumerOf = (node: TestNode) =>
  (node.bus as unknown as { consumer: { close(): Promise<void>; start(): Promise<void> } }).consumer;

/** Event frames only (not the first frame, nor request answers). */
const eventFrames = (sock: RecordingSocket) =>
  sock.raw.filter((r) => /^\{"(subscriptionSetId|event)"/.test(r));

/** Waits until the socket has `n` event frames, then a little longer to see that no more come. */
async function settled(sock: RecordingSocket, n: number) {
  await until(() => eventFrames(sock).length >= n, `${n} event frames`, 10_000);
  await new Promise((r) => setTimeout(r, 150));
}

describe('cluster events across two nodes', { skip: why }, () => {
  let a: TestNode;
  let b: TestNode;
  const clusterName = uniqueClusterName();
  let agentAway = false;
  let admin: CcClient;
  /** Agent 103 changes state on node A: one agent_state_changed each. */
  const toggleAgent = async () => {
    agentAway = !agentAway;
    const r = await admin.post(`extensions/${AGENT}`, {
      request: 'updateAgentState',
      name: agentAway ? 'Meeting' : 'Ready',
    });
    assert.equal(r.status, 200);
  };
  /** DND of 102@1001 toggled on node A (the owner's switch): one presence event each. */
  let dnd = false;
  const toggleDnd = (n: number) => {
    for (let i = 0; i < n; i++) {
      dnd = !dnd;
      a.runtime.switch.setDnd(1001, '102', dnd);
    }
  };

  let target: ReturnType<typeof freshPgTarget>;
  before(async () => {
    target = freshPgTarget();
    a = await startNode('a', clusterName, target, LOCAL);
    b = await startNode('b', clusterName, target, LOCAL);
    for (const t of [1001, 1002]) await assignEverywhere([a, b], t, 'a');
    admin = await CcClient.login(a, '100@1001');
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
    await cleanUp();
  });

  test('a call made on node A raises the same frames, in the same order, on node B’s sockets', async () => {
    const voiceA = await carolSocket(a);
    const voiceB = await carolSocket(b);
    const ccA = await ccSocket(a);
    const ccB = await ccSocket(b);
    assert.deepEqual(ccB.answer, { response: 'connect', success: true });

    const made = await getJson(a, '/api/v1/calls', BOB, {
      method: 'POST',
      json: { from: '101@1001', to: '102' },
    });
    assert.equal(made.status, 201);
    const carolLeg = (await getJson(a, '/api/v1/calls', CAROL)).body._embedded.calls[0].callId as string;
    const answered = await getJson(a, `/api/v1/calls/${carolLeg}`, CAROL, {
      method: 'POST',
      json: { callRequest: 'answerCall', myPartyId: '102@1001' },
    });
    assert.equal(answered.status, 200);
    await toggleAgent();
    const hung = await getJson(a, `/api/v1/calls/${made.body.callId}`, BOB, {
      method: 'POST',
      json: { callRequest: 'hangupCall' },
    });
    assert.equal(hung.status, 200);
    await toggleAgent();

    // Carol hears offer, ringing, answer, end and busy/idle; the admin the agent's and calls' events.
    await settled(voiceA.sock, 6);
    await settled(voiceB.sock, eventFrames(voiceA.sock).length);
    const voiceOf = (s: { sock: RecordingSocket; setId: string }) =>
      eventFrames(s.sock).map((f) => f.replace(s.setId, '<set>'));
    assert.deepEqual(voiceOf(voiceB), voiceOf(voiceA));
    await settled(ccA.sock, 2);
    await settled(ccB.sock, eventFrames(ccA.sock).length);
    assert.deepEqual(eventFrames(ccB.sock), eventFrames(ccA.sock));
    assert.ok(eventFrames(ccA.sock).some((f) => f.includes('"agent_state_changed"')));
    for (const s of [voiceA.sock, voiceB.sock, ccA.sock, ccB.sock]) {
      s.ws.close();
      await s.closed;
    }
  });

  test('a voice socket of node A resumes on node B: every event once, in order, then live', async () => {
    const r = await carolSocket(a, '?resume');
    const id = r.first.webSocketId as string;
    toggleDnd(4);
    await settled(r.sock, 4);
    const seen = sequences(r.sock.frames);
    const last = seen[1]!; // the client processed two of the four before the network dropped
    await drop(r.sock);
    toggleDnd(3);
    const again = await openVoice(b, CAROL, `?resume=${id}&after=${last}`);
    const [first] = await again.waitFor(1);
    assert.deepEqual(first, { webSocketId: id, resume: { status: 'resumed', sequence: last } });
    await settled(again, 5);
    toggleDnd(1);
    await settled(again, 6);
    const got = sequences(again.frames);
    assert.deepEqual(got.slice(0, 2), seen.slice(2), 'the two unprocessed ones first');
    for (let i = 1; i < got.length; i++) assert.ok(got[i]! > got[i - 1]!, `increasing: ${got}`);
    assert.equal(new Set(got).size, 6);
    const names = again.frames.slice(1).map((f) => f.event);
    assert.deepEqual(
      names.slice(0, 2),
      r.sock.frames.slice(3, 5).map((f) => f.event),
    );
    for (let i = 1; i < names.length; i++)
      assert.notEqual(names[i], names[i - 1], `DND alternates: ${names}`);
    again.ws.close();
    await again.closed;
  });

  test('a contact-center session of node A resumes on node B', async () => {
    const one = await ccSocket(a, true);
    assert.equal(one.answer.resumed, false);
    const [uuid] = Object.keys(one.answer.sequences);
    one.sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
    await one.sock.waitFor(2);
    await toggleAgent();
    await toggleAgent();
    await settled(one.sock, 2);
    const seen = eventFrames(one.sock).map((f) => JSON.parse(f).sequence as number);
    await drop(one.sock);
    await toggleAgent();
    await toggleAgent();
    const two = await ccSocket(b, { session: one.answer.session, after: { [uuid!]: seen[1] } });
    assert.equal(two.answer.resumed, true, JSON.stringify(two.answer));
    await settled(two.sock, 2);
    await toggleAgent();
    await settled(two.sock, 3);
    const got = eventFrames(two.sock).map((f) => JSON.parse(f) as { event: string; sequence: number });
    assert.deepEqual(
      got.map((f) => f.event),
      ['agent_state_changed', 'agent_state_changed', 'agent_state_changed'],
    );
    for (let i = 1; i < got.length; i++) assert.ok(got[i]!.sequence > got[i - 1]!.sequence);
    assert.ok(got[0]!.sequence > seen[1]!);
    two.sock.ws.close();
    await two.sock.closed;
  });

  test('a webhook is delivered once, by the owner; after a takeover the next owner goes on', async () => {
    /** Bounds, not timings: CI's loaded two cores once took over 5 s for the first failed try. */
    const LOADED_MS = 20_000;
    let failing = false;
    /** The bodies the receiver took (answered 2xx). */
    const taken: Record<string, unknown>[] = [];
    const receiver = await startReceiver((n, res) => {
      res.statusCode = failing ? 503 : 204;
      if (!failing) taken.push(JSON.parse(receiver.received[n]!.body) as Record<string, unknown>);
      res.end();
    });
    try {
      const created = await getJson(a, '/api/v1/webhooks', CAROL, {
        method: 'POST',
        json: {
          url: receiver.url,
          secret: 'whsec_cluster-0123456789abcdef',
          presenceEventAccounts: ['102@1001'],
        },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      toggleDnd(3);
      await until(() => taken.length >= 3, 'three deliveries', LOADED_MS);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(receiver.received.length, 3, 'once each, though both nodes consumed every event');

      // The receiver fails: the next events stay queued on A (its retries wait on A's clock).
      failing = true;
      toggleDnd(2);
      await until(() => receiver.received.length >= 4, 'a failed try', LOADED_MS);
      // A gives the tenant up; events raised meanwhile (by a third owner) nobody has queued.
      const x = new StaticMembership('x');
      await x.assign(1001, 'x');
      const third = await testBus({ clusterName, membership: x });
      for (const n of [a, b]) await n.membership.assign(1001, 'x');
      const lateEvent = (i: number): PresenceEvent => ({
        type: 'presence',
        name: i % 2 ? 'dndOn' : 'dndOff',
        tenantId: 1001,
        observed: '102@1001',
        at: a.runtime.clock.now(),
      });
      third.publish(lateEvent(1));
      third.publish(lateEvent(2));
      await until(() => b.bus.position() >= third.position(), 'node B saw the late events', 5_000).catch(
        async () => void (await b.bus.caughtUp()),
      );
      await third.close();
      failing = false;
      // B takes over: the stored queue goes on, the late events are queued after it.
      for (const n of [a, b]) await n.membership.assign(1001, 'b');
      await until(() => taken.length >= 7, 'seven deliveries', LOADED_MS);
      // And B delivers what it raises as the owner from now on.
      b.runtime.bus.publish(lateEvent(3));
      await until(() => taken.length >= 8, 'eight deliveries', LOADED_MS);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(taken.length, 8, JSON.stringify(taken));
      const seqs = taken.map((d) => d.sequence as number);
      assert.deepEqual(
        seqs,
        [...seqs].sort((p, q) => p - q),
        'in stream order',
      );
      assert.equal(new Set(seqs).size, 8, 'each event once');
      assert.equal(new Set(taken.map((d) => d.deliveryId)).size, 8);
    } finally {
      await receiver.close();
      for (const n of [a, b]) await n.membership.assign(1001, 'a');
    }
  });

  test('a phone of a tenant node A runs, unregistered there: node B lists it so, and again when it registers', async () => {
    const deviceId = (a.runtime.directory.list('device', 1001)[0] as { id: string }).id;
    const stateOn = (node: TestNode) => listedState(node, deviceId);
    assert.equal(await stateOn(b), 'registered');
    await consumedOnB(() => a.runtime.switch.unregisterDevice(deviceId));
    assert.equal(await stateOn(b), 'unregistered');
    assert.equal(await stateOn(a), 'unregistered');
    await consumedOnB(() => a.runtime.switch.registerDevice(deviceId));
    assert.equal(await stateOn(b), 'registered');
  });

  test('a phone its writer logs in or out through the owner is listed so at once on the other node', async () => {
    // No waiting for B to consume: the change is in the stream before the simulator answers, and
    // B's list catches up with the stream before it answers (docs/cluster.md, "Lists across tenants").
    const deviceId = (a.runtime.directory.list('device', 1001)[1] as { id: string }).id;
    const stateOnB = () => listedState(b, deviceId);
    // The owner knows its event is stored when its own consumer reads it back: held, the
    // simulator's answer waits for it.
    const ownConsumer = consumerOf(a);
    await ownConsumer.close();
    const restarted = new Promise<void>((r) => setTimeout(() => void ownConsumer.start().then(r), 300));
    const started = Date.now();
    const held = await getJson(a, `/sim/v1/devices/${deviceId}/unregister`, ADMIN, { method: 'POST' });
    assert.equal(held.status, 200);
    assert.ok(Date.now() - started >= 250, 'answered once the owner knew the event stored');
    await restarted;
    assert.equal(await stateOnB(), 'unregistered');
    for (const registered of [true, false, true, false, true]) {
      const r = await getJson(
        a,
        `/sim/v1/devices/${deviceId}/${registered ? 'register' : 'unregister'}`,
        ADMIN,
        {
          method: 'POST',
        },
      );
      assert.equal(r.status, 200);
      assert.equal(await stateOnB(), registered ? 'registered' : 'unregistered');
    }
  });

  /**
   * Holds node B's consumer of the stream while `raise` runs on A and `change` (or a read) on B (started
   * 300 ms before B consumes again), so that B consumes what A raised only after the change.
   */
  async function whileBLags(raise: () => Promise<void> | void, change: () => Promise<void>): Promise<void> {
    const consumer = consumerOf(b);
    await consumer.close();
    let restarted: Promise<void> | undefined;
    let timer: NodeJS.Timeout | undefined;
    try {
      await raise();
      // Stored before the change is asked for (the owner publishes without waiting).
      assert.equal(await a.bus.stored(), true);
      timer = setTimeout(() => (restarted = consumer.start()), 300);
      const started = Date.now();
      await change();
      assert.ok(Date.now() - started >= 250, 'the change waited until B had consumed what came before');
    } finally {
      clearTimeout(timer);
      await (restarted ?? consumer.start());
    }
  }

  test('a node that lags the stream lists a phone as its writer just set it, once it caught up', async () => {
    const deviceId = (a.runtime.directory.list('device', 1001)[2] as { id: string }).id;
    const stateOnB = () => listedState(b, deviceId);
    try {
      await whileBLags(
        async () => {
          const r = await getJson(a, `/sim/v1/devices/${deviceId}/unregister`, ADMIN, { method: 'POST' });
          assert.equal(r.status, 200);
        },
        async () => assert.equal(await stateOnB(), 'unregistered'),
      );
    } finally {
      await consumedOnB(() => a.runtime.switch.registerDevice(deviceId));
    }
  });

  /** Sockets the tests below opened: closed after each test, whether it passed or not. */
  const opened: RecordingSocket[] = [];
  afterEach(async () => {
    for (const s of opened.splice(0)) {
      s.ws.close();
      await s.closed;
    }
  });

  test('a subscription set changed on a node that lags the stream hears what was raised before as it was', async () => {
    const { sock, first, setId } = await carolSocket(b);
    opened.push(sock);
    const presence = `/api/v1/subscriptions/ws/${first.webSocketId}/subscriptionsets/${setId}/presenceeventaccounts`;
    // 102's DND changes on A while Carol's set hears 102's presence; then she stops hearing it.
    await whileBLags(
      () => toggleDnd(1),
      async () => {
        const put = await getJson(b, presence, CAROL, { method: 'PUT', json: { eventAccounts: [] } });
        assert.equal(put.status, 200);
      },
    );
    toggleDnd(1);
    await settled(sock, 1);
    assert.equal(eventFrames(sock).length, 1, 'the first change only, raised while she heard it');
    assert.match(eventFrames(sock)[0]!, /"102@1001"/);
  });

  test('a contact-center socket connected or narrowed on a node that lags hears only what is raised after', async () => {
    const { token } = await CcClient.login(b, '100@1001');
    let cc: Awaited<ReturnType<typeof openCc>> | undefined;
    // The agent's state changes on A before the socket connects on B.
    await whileBLags(toggleAgent, async () => {
      cc = await openCc(b, token);
      opened.push(cc.sock);
      assert.deepEqual(cc.answer, { response: 'connect', success: true });
    });
    const { sock } = cc!;
    // One change of the agent's state: its agent_state_changed and each queue's statistics.
    const agentFrames = () => eventFrames(sock).filter((f) => f.includes('"agent_state_changed"'));
    await toggleAgent();
    await settled(sock, 1);
    const perChange = eventFrames(sock).length;
    assert.equal(agentFrames().length, 1, 'the change after the connect only');
    // The agent's state changes on A while the socket hears everything; then it narrows to calls.
    // A refused subscribe sent right after is answered after it, in the order they came.
    const answers = () => sock.raw.filter((r) => r.includes('"response":"subscribe"'));
    await whileBLags(toggleAgent, async () => {
      sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['call'] }));
      sock.ws.send(JSON.stringify({ request: 'subscribe', events: ['no_such_event'] }));
      await until(() => answers().length === 2, 'both answered', 5_000);
    });
    assert.deepEqual(
      answers().map((r) => (JSON.parse(r) as { success: boolean }).success),
      [true, false],
    );
    await toggleAgent();
    await settled(sock, 2 * perChange);
    assert.equal(agentFrames().length, 2, 'the change made before the narrowing, not the one after');
    assert.equal(eventFrames(sock).length, 2 * perChange);
  });

  test('a resumable contact-center session begun on a node that lags starts where the stream stood', async () => {
    const { token } = await CcClient.login(b, '100@1001');
    let cc: Awaited<ReturnType<typeof openCc>> | undefined;
    await whileBLags(toggleAgent, async () => {
      cc = await openCc(b, token, true);
      opened.push(cc.sock);
      assert.equal(cc.answer.success, true, JSON.stringify(cc.answer));
    });
    const { sock } = cc!;
    await toggleAgent();
    await until(() => eventFrames(sock).some((f) => f.includes('"agent_state_changed"')), 'a change', 10_000);
    await new Promise((r) => setTimeout(r, 150));
    const agentFrames = eventFrames(sock).filter((f) => f.includes('"agent_state_changed"'));
    assert.equal(agentFrames.length, 1, 'the change after the connect only');
  });

  test('a frame shows the directory as it was when its event was raised, on every node', async () => {
    const ccA = await ccSocket(a);
    const ccB = await ccSocket(b);
    opened.push(ccA.sock, ccB.sock);
    const agent = a.runtime.directory.extension(1001, '103')!;
    /** The test nodes share no directory sync: each is told alike (docs/cluster.md § Directory). */
    const rename = async (name: string) => {
      for (const n of [a, b]) await n.runtime.directory.put('extension', { ...agent, name });
    };
    const consumer = consumerOf(b);
    try {
      await consumer.close();
      try {
        // The agent's state changes on A; the agent is renamed right after, before B consumes it.
        await toggleAgent();
        assert.equal(await a.bus.stored(), true);
        await rename('Renamed Since');
      } finally {
        await consumer.start();
      }
      await settled(ccA.sock, 1);
      await settled(ccB.sock, eventFrames(ccA.sock).length);
      assert.deepEqual(eventFrames(ccB.sock), eventFrames(ccA.sock));
      const agentFrame = eventFrames(ccB.sock).find((f) => f.includes('"agent_state_changed"'))!;
      assert.ok(agentFrame.includes(`"name":${JSON.stringify(agent.name)}`), agentFrame);
    } finally {
      await rename(agent.name);
    }
  });

  test('a node that starts after a phone changed has it as its owner does, and keeps it taking the tenant over', async () => {
    const deviceId = (a.runtime.directory.list('device', 1001)[0] as { id: string }).id;
    a.runtime.switch.unregisterDevice(deviceId);
    await a.runtime.liveState.journal.flush();
    const c = await startNode('c', clusterName, target, LOCAL);
    try {
      assert.equal(c.runtime.switch.isRegistered(deviceId), false, 'not as provisioned: as A has it');
      await c.membership.assign(1001, 'c');
      assert.equal(c.runtime.switch.isRegistered(deviceId), false, 'its new owner rings no logged-out phone');
      assert.equal(
        c.runtime.switch.presence(1001, a.runtime.directory.device(deviceId)!.ownerExt).reachability,
        'unavailable',
      );
    } finally {
      await c.stop();
      // A's lease written again (C's grant was above it), then the phone back as it was.
      for (const owner of ['b', 'a']) await assignEverywhere([a, b], 1001, owner);
      await consumedOnB(() => a.runtime.switch.registerDevice(deviceId));
      await a.runtime.liveState.journal.flush();
    }
  });

  test('a phone unregistered on the previous owner as B takes the tenant over shows so on B', async () => {
    const deviceId = (a.runtime.directory.list('device', 1001)[0] as { id: string }).id;
    const registeredOnB = () => b.runtime.switch.isRegistered(deviceId);
    try {
      // B runs tenant 1001 now; A has not heard yet and raises the phone's last event.
      await b.membership.assign(1001, 'b');
      assert.equal(a.membership.owns(1001), true);
      assert.equal(registeredOnB(), true);
      await consumedOnB(() => a.runtime.switch.unregisterDevice(deviceId));
      assert.equal(registeredOnB(), false, 'node B noted it, though it owns the tenant');
    } finally {
      await consumedOnB(() => a.runtime.switch.registerDevice(deviceId));
      for (const n of [a, b]) await n.membership.assign(1001, 'b');
      for (const n of [a, b]) await n.membership.assign(1001, 'a');
    }
    assert.equal(registeredOnB(), true);
  });

  test('the new owner does not take back a change it made itself for an older event of the previous owner', async () => {
    const deviceId = (a.runtime.directory.list('device', 1001)[0] as { id: string }).id;
    const registeredOnB = () => b.runtime.switch.isRegistered(deviceId);
    try {
      await b.membership.assign(1001, 'b');
      b.runtime.switch.unregisterDevice(deviceId);
      assert.equal(registeredOnB(), false);
      // The previous owner's last event of the phone, under its older lease, stored after B's
      // change; its clock runs a minute ahead, which does not matter.
      const at = b.runtime.clock.now() + 60_000;
      await consumedOnB(() =>
        a.runtime.bus.publish({ type: 'device', tenantId: 1001, deviceId, registered: true, at }),
      );
      assert.equal(registeredOnB(), false, "B's own change stands");
    } finally {
      await consumedOnB(() => b.runtime.switch.registerDevice(deviceId), b);
      for (const n of [a, b]) await n.membership.assign(1001, 'b');
      for (const n of [a, b]) await n.membership.assign(1001, 'a');
    }
    assert.equal(a.runtime.switch.isRegistered(deviceId), true);
  });

  /**
   * Runs `change` on node `from` (A unless given), then waits until the other node has consumed
   * what it published: `from` reads its own event back with its stream sequence, and the other
   * node's position passes it.
   */
  async function consumedOnB(change: () => void, from: TestNode = a): Promise<void> {
    const to = from === a ? b : a;
    let seq = 0;
    const off = from.bus.subscribe((_e, s) => void (seq = Math.max(seq, s ?? 0)));
    try {
      change();
      await until(() => seq > 0, 'the publishing node read its event back');
      await until(() => to.bus.position() >= seq, 'the other node consumed it');
    } finally {
      off();
    }
  }

  /** A webhook of CAROL's presence on node A, delivering to `url`; resolves once it is stored. */
  async function storedHook(url: string): Promise<string> {
    const created = await getJson(a, '/api/v1/webhooks', CAROL, {
      method: 'POST',
      json: { url, secret: 'whsec_cluster-0123456789abcdef', presenceEventAccounts: ['102@1001'] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.webhookId as string;
    const end = Date.now() + 10_000;
    const k = b.runtime.db.kysely;
    while (!(await k.selectFrom('webhooks').select('id').where('id', '=', id).executeTakeFirst())) {
      if (Date.now() > end) throw new Error('the webhook was not stored');
      await new Promise((r) => setTimeout(r, 10));
    }
    return id;
  }

  test('a webhook with no delivery yet: the next owner delivers the events raised since it was made', async () => {
    const taken: { sequence: number; webhookId: string; event: string }[] = [];
    const receiver = await startReceiver((n, res) => {
      taken.push(JSON.parse(receiver.received[n]!.body) as (typeof taken)[number]);
      res.statusCode = 204;
      res.end();
    });
    try {
      const id = await storedHook(receiver.url);
      // A gives the tenant up before any event; a third owner raises two that nobody queues.
      const x = new StaticMembership('x');
      await x.assign(1001, 'x');
      const third = await testBus({ clusterName, membership: x });
      for (const n of [a, b]) await n.membership.assign(1001, 'x');
      const start = b.bus.position();
      for (const name of ['dndOn', 'dndOff'] as const)
        third.publish({
          type: 'presence',
          name,
          tenantId: 1001,
          observed: '102@1001',
          at: a.runtime.clock.now(),
        });
      assert.ok(await b.bus.caughtUp(), 'node B saw the events');
      await third.close();
      assert.equal(receiver.received.length, 0);
      // B takes over: its webhook has no delivery to go on from, only the point it was made at.
      for (const n of [a, b]) await n.membership.assign(1001, 'b');
      await until(() => taken.length >= 2, 'two deliveries', 20_000);
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(
        taken.map((d) => [d.webhookId, d.event]),
        [
          [id, 'dndOn'],
          [id, 'dndOff'],
        ],
      );
      const [s1, s2] = taken.map((d) => d.sequence);
      assert.ok(start < s1! && s1! < s2!, `${start} < ${s1} < ${s2}`);
    } finally {
      await receiver.close();
      for (const n of [a, b]) await n.membership.assign(1001, 'a');
    }
  });

  test('an owner whose lease was taken, before it hears so, delivers nothing; the new owner delivers', async () => {
    const taken: { sequence: number; event: string }[] = [];
    const receiver = await startReceiver((n, res) => {
      taken.push(JSON.parse(receiver.received[n]!.body) as { sequence: number; event: string });
      res.statusCode = 204;
      res.end();
    });
    try {
      await storedHook(receiver.url);
      // B is granted the lease (a new epoch, in the database); A is not told, as if it were paused.
      await b.membership.assign(1001, 'b');
      assert.equal(a.membership.owns(1001), true);
      const mine = async () =>
        ((await getJson(a, '/api/v1/webhooks', CAROL)).body._embedded.webhooks as unknown[]).length;
      const before = await mine();
      assert.ok(before >= 1);
      // A's switch still raises the event; both nodes consume it from the stream.
      toggleDnd(1);
      await until(() => taken.length >= 1, 'the delivery', 20_000);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(receiver.received.length, 1, JSON.stringify(taken));
      assert.equal(taken[0]!.event, dnd ? 'dndOn' : 'dndOff');
      // A's webhooks of the tenant stopped when the database refused its lease.
      assert.equal(await mine(), 0);
    } finally {
      await receiver.close();
      // A hears of the loss, then gains the tenant again under a lease above B's.
      for (const n of [a, b]) await n.membership.assign(1001, 'b');
      for (const n of [a, b]) await n.membership.assign(1001, 'a');
    }
  });
});
