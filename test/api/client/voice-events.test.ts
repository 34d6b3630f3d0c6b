import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type PresenceStatus,
  VOICE_KEEP_ALIVE_TEXT,
  VoiceApiError,
  VoiceClient,
  type VoiceUpdate,
} from '../../../packages/client/src/index.js';
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

const byAccount = (list: PresenceStatus[]) =>
  Object.fromEntries(list.map((p) => [p.accountId, p.callActivity]));

describe('voice events through the client', () => {
  const bed = clientTestBed(VoiceClient);
  const voice = bed.client;

  test('watch: the initial state from the status resources, then the events', async () => {
    const alice = voice('100@1001');
    const bob = voice('101@1001');
    const watch = await alice.watch({
      calls: ['101@1001'],
      presence: ['101@1001', '102@1001'],
      parkLocations: ['PL1@1001'],
    });
    assert.deepEqual(byAccount(watch.initial.presence), { '101@1001': 'idle', '102@1001': 'idle' });
    assert.deepEqual(watch.initial.parkLocations, [{ accountId: 'PL1@1001', state: 'idle' }]);
    assert.deepEqual(watch.initial.activeCalls, []);
    const updates = watch[Symbol.asyncIterator]();

    const placed = await bob.calls.make({ from: '101@1001', to: '102' });
    const dial = await nextMatching(updates, (u) => u.type === 'event' && u.event.event === 'dial', 'dial');
    assert.equal(dial.type === 'event' && dial.event.observedParty, '101@1001');
    assert.equal(dial.type === 'event' && dial.event.subscriptionSetId, watch.set.id);
    await nextMatching(
      updates,
      (u) => u.type === 'event' && u.event.event === 'busy' && u.event.observedParty === '102@1001',
      'presence busy of 102',
    );
    await bob.calls.hangup(placed.callId);
    await nextMatching(updates, (u) => u.type === 'event' && u.event.event === 'end', 'end');
    await watch.close();
    await alice.close();
    assert.deepEqual(
      await watch.set.eventAccounts('calls').catch((e: Error) => e.message),
      'the subscription set is not attached to an open socket',
    );
  });

  test('a socket the server drops is reopened; the sets are created again and events flow', async () => {
    const alice = voice('100@1001', { socket: { reconnect: FAST_RECONNECT, resume: false } });
    const bob = voice('101@1001');
    const watch = await alice.watch({ calls: ['101@1001'], presence: ['101@1001'] });
    const stream = await alice.events();
    const oldSocket = stream.webSocketId!;
    const oldSet = watch.set.id!;
    const updates = watch[Symbol.asyncIterator]();
    const seen: string[] = [];
    stream.on('disconnected', () => seen.push('disconnected'));
    stream.on('reconnecting', () => seen.push('reconnecting'));
    const reconnected = when<{ webSocketId: string; reconnect: boolean }>(
      (done) => stream.on('connected', done),
      'reconnect',
    );

    assert.equal(dropServerSockets(bed.sockets, '/api/ws'), 1);
    const info = await reconnected;
    assert.equal(info.reconnect, true);
    assert.notEqual(info.webSocketId, oldSocket);
    assert.deepEqual(seen.slice(0, 2), ['disconnected', 'reconnecting']);
    assert.notEqual(watch.set.id, oldSet);
    // The set exists again on the new socket, with the same accounts; the old socket is gone.
    assert.deepEqual(await watch.set.eventAccounts('calls'), ['101@1001']);
    assert.deepEqual(await watch.set.eventAccounts('presence'), ['101@1001']);
    const gone = await alice
      .follow('v1:eventSubscriptionSets', { webSocketId: oldSocket })
      .catch((e: unknown) => e);
    assert.ok(gone instanceof VoiceApiError);
    assert.equal(gone.errorCode, 'WEBSOCKET_NOT_FOUND');
    // The state is read again, since events while disconnected are lost.
    const resync = await nextMatching(updates, (u) => u.type === 'resync', 'resync');
    assert.deepEqual(resync.type === 'resync' && byAccount(resync.state.presence), { '101@1001': 'idle' });

    const placed = await bob.calls.make({ from: '101@1001', to: '103' });
    const dial = (await nextMatching(
      updates,
      (u) => u.type === 'event' && u.event.event === 'dial',
      'dial after reconnect',
    )) as Extract<VoiceUpdate, { type: 'event' }>;
    assert.equal(dial.event.subscriptionSetId, watch.set.id);
    assert.equal(dial.event.observedParty, '101@1001');
    await bob.calls.hangup(placed.callId);
    await watch.close();
  });

  test('a keep-alive interval at or above the idle time-out is refused', async () => {
    const client = voice('100@1001', { socket: { keepAliveMs: 600_000, serverIdleTimeoutMs: 600_000 } });
    await assert.rejects(client.events(), RangeError);
  });
});

describe('voice keep-alive against a server with a short idle time-out', () => {
  const bed = clientTestBed(VoiceClient, { wsIdleMs: 600 });

  test('a short text every keepAliveMs, echoed by the server, keeps the socket open', async () => {
    const client = bed.client('100@1001', { socket: KEEP_ALIVE });
    try {
      const stream = await client.events();
      const id = stream.webSocketId;
      let disconnects = 0;
      stream.on('disconnected', () => disconnects++);
      let echoes = 0;
      // 12 keep-alives span twice the server's idle time-out.
      await when<void>((done) => stream.on('keepAlive', () => ++echoes === 12 && done()), '12 echoes');
      assert.equal(disconnects, 0);
      assert.equal(stream.webSocketId, id);
      const side = bed.sockets.find((x) => x.headers.authorization?.includes(btoa('100@1001:')))!;
      assert.ok(side.received.length >= 12);
      assert.ok(side.received.every((m) => m === VOICE_KEEP_ALIVE_TEXT));
      assert.match(side.headers['user-agent'] ?? '', /^switchboard-client\/\S+ node\/\S+$/);
    } finally {
      await client.close();
    }
  });

  test('a dead socket is closed gracefully: the server frees the slot and the new socket is admitted', async () => {
    const client = bed.client('103@1001', { socket: QUIET_SOCKET });
    try {
      const stream = await client.events();
      const first = stream.webSocketId;
      // No echo of keep-alives any more.
      const { attempts, serverClosed, reconnected } = stopAnswering<{ webSocketId: string }>(
        bed.sockets,
        stream,
      );
      assert.deepEqual(await serverClosed, { code: 1000, reason: 'no answer to keep-alive' });
      const info = await reconnected;
      assert.notEqual(info.webSocketId, first);
      // The old socket was gone from the server before the new one was asked for: admitted at once.
      assert.deepEqual(attempts, [undefined]);
    } finally {
      await client.close();
    }
  });

  test('a server that stops reading is detected by the keep-alive, dropped, and the socket reopened', async () => {
    const client = new VoiceClient({
      url: bed.server.httpUrl,
      username: '102@1001',
      password: '1234',
      socket: { ...QUIET_SOCKET, closeTimeoutMs: 50 },
    });
    try {
      const stream = await client.events();
      const first = stream.webSocketId;
      const side = bed.sockets.at(-1)!;
      assert.equal(side.path, '/api/ws');
      const errors: unknown[] = [];
      stream.on('reconnecting', ({ error }) => errors.push(error));
      const reconnected = when<{ webSocketId: string }>((done) => stream.on('connected', done), 'reconnect');
      // The server's side stops reading: no echo comes back and the client gives the socket up.
      // Its close frame is never read, so after closeTimeoutMs the connection is dropped. The
      // server still counts the silent socket against the client until its idle time-out ends
      // it, so the first attempts are refused with 429 and retried. (A cluster node that finds
      // the client's socket claimed first looks again for half a second, which the idle time-out
      // may end first: there the reconnect may be admitted without a refusal.)
      side.ws.pause();
      const info = await reconnected;
      assert.notEqual(info.webSocketId, first);
      assert.ok(
        bed.server.nodes.length > 1 ||
          errors.some((e) => e instanceof VoiceApiError && e.errorCode === 'CONNECTION_LIMIT_PER_CLIENT'),
        'a refusal while the old socket was still counted',
      );
      side.ws.terminate();
    } finally {
      await client.close();
    }
  });
});
