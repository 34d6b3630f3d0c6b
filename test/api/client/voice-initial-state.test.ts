import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type CallActivity,
  type PlacedCall,
  VoiceClient,
  type WatchedCall,
} from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { nextMatching } from './client-helpers.js';

const activity = (list: CallActivity[]) => Object.fromEntries(list.map((a) => [a.accountId, a.callActivity]));
const legs = (list: WatchedCall[]) =>
  list
    .map((c) => [c.accountId, c.callId, c.from, c.to])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])));

/**
 * Calls already in progress when a watch starts: the initial state holds what the API lets the
 * requester read about the watched accounts' calls, and nothing about accounts it does not watch.
 */
describe('voice watch: the initial state of calls already in progress', () => {
  let s: TestServer;
  const open: VoiceClient[] = [];
  const voice = (username: string, password = '1234') => {
    const c = new VoiceClient({ url: s.httpUrl, username, password });
    open.push(c);
    return c;
  };
  /** callId of the one live leg of `username` (the callee's leg of a call placed by another). */
  const onlyLeg = async (username: string) => {
    const calls = await voice(username).calls.list();
    assert.equal(calls.length, 1, `${username} is in one call`);
    return calls[0]!.callId;
  };

  let bobToCarol: PlacedCall;
  let carolLeg: string;
  let aliceToDan: PlacedCall;
  let danLeg: string;
  before(async () => {
    s = await startTestServer();
    // Before any watch: Bob (101) calls Carol (102), who answers; Alice (100, the tenant admin)
    // calls Dan (103), whose phone rings.
    bobToCarol = await voice('101@1001').calls.make({ from: '101@1001', to: '102' });
    carolLeg = await onlyLeg('102@1001');
    await voice('102@1001').calls.answer(carolLeg, '102@1001');
    aliceToDan = await voice('100@1001').calls.make({ from: '100@1001', to: '103' });
    danLeg = await onlyLeg('103@1001');
  });
  after(async () => {
    for (const c of open) await c.close();
    await s.stop();
  });

  test('a tenant admin: who is busy for every watched user, the own calls listed, then the events', async () => {
    const alice = voice('100@1001');
    const watch = await alice.watch({ calls: ['ALL_USERS@1001'] });
    const state = watch.initial;
    assert.equal(state.callsListed, 'own');
    // Bob and Carol's call started before the watch: the API lists it to neither an admin nor
    // anyone but them, so it shows as both being busy.
    assert.deepEqual(activity(state.callActivity), {
      '100@1001': 'busy',
      '101@1001': 'busy',
      '102@1001': 'busy',
      '103@1001': 'busy',
      '104@1001': 'idle',
      '105@1001': 'idle',
      '150@1001': 'idle',
    });
    // Alice's own call is listed, as her leg.
    assert.deepEqual(legs(state.activeCalls), [['100@1001', aliceToDan.callId, '100', '103']]);
    assert.deepEqual(state.presence, []);

    // The call between two other extensions goes on, and its next change is an event.
    const updates = watch[Symbol.asyncIterator]();
    await voice('101@1001').calls.hangup(bobToCarol.callId);
    const end = await nextMatching(
      updates,
      (u) => u.type === 'event' && u.event.event === 'end' && u.event.observedParty === '102@1001',
      'end of the call that was in progress',
    );
    assert.ok(end.type === 'event' && end.event.event === 'end');
    assert.equal(String(end.event.callId), carolLeg);
    await watch.close();
    await alice.close();
  });

  test('a tenant admin watching other extensions: their activity, not the admin’s own calls', async () => {
    const alice = voice('100@1001');
    const watch = await alice.watch({ calls: ['103@1001', '104@1001'] });
    assert.equal(watch.initial.callsListed, 'own');
    assert.deepEqual(activity(watch.initial.callActivity), { '103@1001': 'busy', '104@1001': 'idle' });
    // Alice is in a call with Dan, but she does not watch herself.
    assert.deepEqual(watch.initial.activeCalls, []);
    await watch.close();
    await alice.close();
  });

  test('a scoped telco user: the watched accounts’ legs among every call of the tenant', async () => {
    const operator = voice('operator', 'operator');
    const watch = await operator.watch({ calls: ['103@1001', '100@1001'], presence: ['101@1001'] });
    const state = watch.initial;
    assert.equal(state.callsListed, 'all');
    // Both legs of Alice's call to Dan, each as its watched account's; nothing of other calls.
    assert.deepEqual(legs(state.activeCalls), [
      ['100@1001', aliceToDan.callId, '100', '103'],
      ['103@1001', danLeg, '100', '103'],
    ]);
    assert.deepEqual(activity(state.callActivity), { '100@1001': 'busy', '103@1001': 'busy' });
    assert.deepEqual(
      state.presence.map((p) => p.accountId),
      ['101@1001'],
    );
    await watch.close();

    const everyone = await operator.watch({ calls: ['ALL'] });
    assert.deepEqual(
      everyone.initial.activeCalls.map((c) => c.accountId).sort(),
      ['100@1001', '103@1001'],
      'Bob and Carol hung up in the first test; ACD and group extensions are in no call',
    );
    await everyone.close();
    await operator.close();
  });

  test('a user: their own calls and activity', async () => {
    const dan = voice('103@1001');
    const watch = await dan.watch({ calls: ['103@1001'] });
    assert.equal(watch.initial.callsListed, 'own');
    assert.deepEqual(legs(watch.initial.activeCalls), [['103@1001', danLeg, '100', '103']]);
    assert.deepEqual(activity(watch.initial.callActivity), { '103@1001': 'busy' });
    await watch.close();
    await dan.close();
  });
});
