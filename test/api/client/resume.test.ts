import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { type CcEvent, CcClient, type VoiceEvent, VoiceClient } from '../../../packages/client/src/index.js';
import { presence } from '../../helpers/resume.js';
import { clientTestBed, dropServerSockets, FAST_RECONNECT, when } from './client-helpers.js';

/** Waits (bounded, real time) until `list` holds `n` items. */
async function until<T>(list: T[], n: number, what: string): Promise<T[]> {
  for (let i = 0; i < 300 && list.length < n; i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(list.length >= n, `${what}: ${list.length} of ${n}`);
  return list;
}

describe('the voice client resumes by itself', () => {
  const bed = clientTestBed(VoiceClient);

  test('a dropped socket comes back with its sets; events lost in flight arrive once, in order', async () => {
    const alice = bed.client('100@1001', { socket: { reconnect: FAST_RECONNECT } });
    const stream = await alice.events();
    const set = await stream.subscribe({ presence: ['102@1001'] });
    const got: VoiceEvent[] = [];
    stream.on('event', (e) => got.push(e));
    presence(bed.server, 2);
    await until(got, 2, 'before the drop');
    const socketId = stream.webSocketId;
    const reconnected = when<{ webSocketId: string; resumed?: boolean }>(
      (done) => stream.on('connected', done),
      'reconnect',
    );
    assert.equal(dropServerSockets(bed.sockets, '/api/ws'), 1);
    // Sent into the dropped connection: lost on the wire, kept by the server.
    presence(bed.server, 3);
    const info = await reconnected;
    assert.equal(info.resumed, true);
    assert.equal(info.webSocketId, socketId);
    assert.match(bed.sockets.at(-1)!.path, new RegExp(`resume=${socketId}&after=\\d+`));
    presence(bed.server, 1);
    await until(got, 6, 'after the resume');
    const seqs = got.map((e) => e.sequence!);
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `consecutive: ${seqs}`);
    assert.ok(got.every((e) => e.subscriptionSetId === set.id));
    await alice.close();
  });
});

describe('the contact-center client resumes by itself', () => {
  const bed = clientTestBed(CcClient);

  test('a dropped socket comes back; events lost in flight arrive once, in order', async () => {
    const acme = bed.client('100@1001', { socket: { reconnect: FAST_RECONNECT } });
    const stream = await acme.events(['agent_state_changed']);
    const got: CcEvent[] = [];
    stream.on('event', (e) => got.push(e));
    const ext = DEMO.extensionUuid(1001, '103');
    await acme.setAgentState(ext, 'Meeting');
    await until(got, 1, 'before the drop');
    const reconnected = when<{ reconnect: boolean; resumed?: boolean }>(
      (done) => stream.on('connected', done),
      'reconnect',
    );
    assert.equal(dropServerSockets(bed.sockets, '/6/v2/sock'), 1);
    const first = JSON.parse(bed.sockets.at(-1)!.received[0]!);
    assert.equal(first.resume, true);
    await acme.setAgentState(ext, 'Ready');
    assert.deepEqual(await reconnected, { reconnect: true, resumed: true });
    const again = JSON.parse(bed.sockets.at(-1)!.received[0]!);
    assert.equal(typeof again.resume.session, 'string');
    await acme.setAgentState(ext, 'Meeting');
    await until(got, 3, 'after the resume');
    assert.deepEqual(
      got.map((e) => (e.data as { agent_state: { state: { name: string } } }).agent_state.state.name),
      ['Meeting', 'Ready', 'Meeting'],
    );
    const seqs = got.map((e) => e.sequence!);
    assert.ok(seqs[0] < seqs[1] && seqs[1] < seqs[2], `in order: ${seqs}`);
    await acme.setAgentState(ext, 'Ready');
    await acme.close();
  });
});
