import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CcClient, type CcEvent } from '../../../packages/client/src/index.js';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { sim } from '../ccs/cc-client.js';
import {
  clientTestBed,
  dropServerSockets,
  FAST_RECONNECT,
  KEEP_ALIVE,
  nextMatching,
  QUIET_SOCKET,
  stopAnswering,
  when,
} from './client-helpers.js';

const ACME = DEMO.acme.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);

/** Resolves with the first event of the stream that matches. */
function nextEvent(
  stream: { on(name: 'event', l: (e: CcEvent) => void): () => void },
  match: (e: CcEvent) => boolean,
  what: string,
) {
  return when<CcEvent>((done) => {
    const off = stream.on('event', (e) => {
      if (match(e)) {
        off();
        done(e);
      }
    });
  }, what);
}

describe('contact-center events through the client', () => {
  const bed = clientTestBed(CcClient);
  const cc = bed.client;

  test('connect with the token, subscribe, and both again after the server drops the socket', async () => {
    const acme = cc('100@1001', { socket: { reconnect: FAST_RECONNECT } });
    const stream = await acme.events(['call']);
    const seen: CcEvent[] = [];
    stream.on('event', (e) => seen.push(e));
    const first = bed.sockets.at(-1)!;
    assert.equal(first.path, '/6/v2/sock');
    assert.deepEqual(
      first.received.map((m) => JSON.parse(m).request),
      ['connect', 'subscribe'],
    );

    const queued = nextEvent(stream, (e) => e.event === 'call_queued', 'call_queued');
    await sim(bed.server, 'pstn/calls', {
      from: '+15550001111',
      to: '+15555550150',
      callerName: 'First Caller',
    });
    const q1 = await queued;
    assert.equal(q1.category, 'call');
    assert.equal(q1.tenant_id, ACME);

    const reconnected = when<{ reconnect: boolean }>((done) => stream.on('connected', done), 'reconnect');
    assert.equal(dropServerSockets(bed.sockets, '/6/v2/sock'), 1);
    assert.equal((await reconnected).reconnect, true);
    const second = bed.sockets.at(-1)!;
    assert.notEqual(second, first);
    const [connect, subscribe] = second.received.map((m) => JSON.parse(m));
    assert.equal(connect.request, 'connect');
    assert.equal(connect.token, await acme.tokens.accessToken());
    assert.deepEqual(subscribe, { request: 'subscribe', events: ['call'] });

    // Events flow again, still narrowed to calls.
    const again = nextEvent(
      stream,
      (e) =>
        e.event === 'call_queued' && e.category === 'call' && e.data.call.calling.name === 'Second Caller',
      'call_queued after the reconnect',
    );
    await acme.setAgentState(ext('104'), 'Break');
    await sim(bed.server, 'pstn/calls', {
      from: '+15550002222',
      to: '+15555550150',
      callerName: 'Second Caller',
    });
    await again;
    await acme.setAgentState(ext('104'), 'Ready');
    assert.ok(
      seen.every((e) => e.category === 'call'),
      'only call events',
    );
    await acme.close();
  });

  test('watch: agents and queues from REST first, then events; read again after a reconnect', async () => {
    await sim(bed.server, 'reset');
    const acme = cc('100@1001', { socket: { reconnect: FAST_RECONNECT, resume: false } });
    const watch = await acme.watch();
    assert.equal(watch.initial.tenant.uuid, ACME);
    assert.deepEqual(
      watch.initial.agents.map((a) => [a.extension, a.name, a.agent_state.state.name]),
      [
        ['101', 'Bob Brown', 'Ready'],
        ['102', 'Carol Chen', 'Ready'],
        ['103', 'Dan Diaz', 'Ready'],
        ['104', 'Erin Evans', 'Ready'],
      ],
    );
    assert.deepEqual(
      watch.initial.queues.map((q) => [q.name, q.extension, q.waiting]),
      [
        ['Sales', '500', 0],
        ['Support', '501', 0],
      ],
    );
    const updates = watch[Symbol.asyncIterator]();
    await sim(bed.server, 'pstn/calls', { from: '+15550003333', to: '+15555550150' });
    const stats = await nextMatching(
      updates,
      (u) => u.type === 'event' && u.event.event === 'queue_statistics',
      'queue statistics',
    );
    assert.equal(
      stats.type === 'event' && stats.event.category === 'inbound_queue' && stats.event.data.queue_name,
      'Sales',
    );
    await nextMatching(
      updates,
      (u) => u.type === 'event' && u.event.event === 'phone_state_changed',
      'a phone rings',
    );

    const stream = await acme.events();
    const reconnected = when<unknown>((done) => stream.on('connected', done), 'reconnect');
    dropServerSockets(bed.sockets, '/6/v2/sock');
    await reconnected;
    const resync = await nextMatching(updates, (u) => u.type === 'resync', 'resync');
    assert.ok(resync.type === 'resync');
    assert.equal(resync.state.queues.find((q) => q.name === 'Sales')?.waiting, 1);
    const ringing = resync.state.agents.find((a) => a.phone_state.state === 'Ringing');
    assert.ok(ringing, 'an agent is being offered the call');
    watch.close();
    await acme.close();
  });
});

describe('contact-center keep-alive against a server with a short idle time-out', () => {
  const bed = clientTestBed(CcClient, { wsIdleMs: 600 });

  test('the subscription is repeated within the idle time-out, and the server answers it', async () => {
    const client = bed.client('100@1001', { socket: KEEP_ALIVE });
    try {
      const stream = await client.events();
      let disconnects = 0;
      stream.on('disconnected', () => disconnects++);
      let answers = 0;
      await when<void>((done) => stream.on('keepAlive', () => ++answers === 12 && done()), '12 answers');
      assert.equal(disconnects, 0);
      assert.equal(bed.sockets.length, 1);
      const [connect, ...rest] = bed.sockets[0]!.received.map((m) => JSON.parse(m));
      assert.equal(connect.request, 'connect');
      assert.ok(rest.length >= 12);
      for (const m of rest)
        assert.deepEqual(m, { request: 'subscribe', events: ['agent', 'call', 'inbound_queue'] });
    } finally {
      await client.close();
    }
  });

  test('a socket that stops answering is closed gracefully and opened again', async () => {
    const client = bed.client('101@1001', { socket: QUIET_SOCKET });
    try {
      const stream = await client.events();
      const { side, attempts, serverClosed, reconnected } = stopAnswering<{ reconnect: boolean }>(
        bed.sockets,
        stream,
      );
      assert.deepEqual(await serverClosed, { code: 1000, reason: 'no answer to keep-alive' });
      assert.deepEqual(await reconnected, { reconnect: true });
      // The old socket was gone before the new one connected: no "Too many connections".
      assert.deepEqual(attempts, [undefined]);
      const fresh = bed.sockets.at(-1)!;
      assert.notEqual(fresh, side);
      assert.equal(JSON.parse(fresh.received[0]!).request, 'connect');
    } finally {
      await client.close();
    }
  });
});
