/**
 * Taking a tenant over, the contact center's side: a queue call an agent was talking on ends with
 * "node lost" (its `call_ended`, its record with the contact-center details, the agent's queue
 * and phone states back to None and Idle); a caller whose offer was ringing waits on and is
 * offered again; agents keep their states, a signed-out agent stays signed out of the ACD, and
 * nothing already said is said again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import type { PlatformEvent } from '../../../src/api/platform-events.js';
import type { CcCallSnapshot, CcEvent } from '../../../src/contact-center/types.js';
import { DEFAULTS } from '../../../src/server/config.js';
import { createRuntime, type Runtime } from '../../../src/server/runtime.js';
import type { CallRecordData, CallEvent, PresenceEvent } from '../../../src/switch/types.js';

const SALES_DID = '+15555550150';
const phone = (n: string) => `ph1001-${n}`;

const node = (file: string) =>
  createRuntime({ ...DEFAULTS, db: file, clock: 'virtual', logLevel: 'silent' }, pino({ level: 'silent' }));

function heard(rt: Runtime) {
  const events: PlatformEvent[] = [];
  rt.bus.subscribe((e) => events.push(e));
  const cc = (name: string) => events.filter((e): e is CcEvent => e.type === 'cc' && e.name === name);
  const calls = (account: string) =>
    events.filter((e): e is CallEvent => e.type === 'call' && e.observed === account);
  return { events, cc, calls };
}

test('a taken-over tenant: lost queue calls end with their records, waiting ones wait on, agents keep their states', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-takeover-')), 't.db');
  const a = await node(file);
  const cc = a.contactCenter;
  cc.setAgentState(1001, '103', 'Break');
  cc.setAgentState(1001, '104', 'Signed Out');
  a.switch.pstnCall({ from: '+15551230001', to: SALES_DID, callerName: 'Pat' });
  const answered = a.switch.deviceAnswer(phone('101'));
  a.clock.advance(4000);
  const second = a.switch.pstnCall({ from: '+15551230002', to: SALES_DID, callerName: 'Quinn' });
  const talking = answered.smdrCallId;
  const ringing = a.switch.leg(second.pstnCallId)!.smdrCallId;
  assert.equal(cc.agentState(1001, '102').queueState, 'Offered');
  assert.equal(cc.agentState(1001, '101').queueState, 'Connected');
  const talkingSteps = a.switch.durableCall(1001, talking)!.segments.map((x) => x.text);
  await a.liveState.journal.flush();
  await a.close();

  const b = await node(file);
  const h = heard(b);
  b.clock.advance(10_000);
  const left = await b.liveState.store.loadAll();
  assert.deepEqual(left.calls.map((c) => c.smdrCallId).sort(), [talking, ringing].sort());
  const result = b.liveState.takeover.takeOver(1001, left);
  assert.deepEqual(result.ended, [talking]);
  assert.deepEqual(result.waiting, [ringing]);

  // The call 101 was talking on: ended with the reason everywhere.
  const [ended] = h.cc('call_ended') as Extract<CcEvent, { category: 'call' }>[];
  assert.equal(ended?.data.call.smdrCallId, talking);
  assert.equal(ended.data.reason, 'node lost');
  assert.deepEqual(
    h.calls('101@1001').map((e) => [e.name, e.name === 'end' ? e.fields.endReason : '']),
    [['end', 'node lost']],
  );
  const bob = b.contactCenter.agentState(1001, '101');
  assert.equal(bob.queueState, 'None');
  await b.liveState.journal.flush();
  const record = await b.callRecords.get(1001, talking);
  const data = record?.data as unknown as CallRecordData & { cc: CcCallSnapshot };
  assert.equal(record?.outcome, 'Answered');
  assert.deepEqual(
    data.segments.map((x) => x.text),
    [...talkingSteps, 'Disconnected (node lost)'],
    'every step the call took on the lost node, then its end',
  );
  assert.equal(data.cc.timeline.at(-1)?.text, 'Disconnected (node lost)');
  assert.equal(data.cc.recordings.length, 1, "101's Mandatory recording");
  assert.equal(data.cc.recordings[0]!.stopAt, b.clock.now(), 'stopped at the end');

  // The caller whose offer rang 102 waits on and is offered again (102's ring ended with the reason).
  assert.deepEqual(
    h
      .calls('102@1001')
      .map((e) => e.name)
      .slice(0, 1),
    ['end'],
  );
  const offered = h.cc('call_offered') as Extract<CcEvent, { category: 'call' }>[];
  assert.equal(offered.length, 1);
  assert.equal(offered[0]!.data.call.smdrCallId, ringing);
  assert.equal(offered[0]!.data.call.queuedAt, a.clock.now(), 'its queue time is kept');
  assert.equal(h.cc('call_queued').length, 0, 'not queued again: subscribers saw it queue');

  // Agents: 103 on a break, 104 signed out of the ACD; no state is announced again.
  assert.equal(b.contactCenter.agentState(1001, '103').agentState.name, 'Break');
  assert.equal(b.switch.presence(1001, '104').acd, 'signedOutAcd');
  assert.equal(h.cc('agent_state_changed').length, 0);
  const presence = h.events.filter((e): e is PresenceEvent => e.type === 'presence');
  assert.deepEqual(
    presence.map((e) => `${e.observed} ${e.name}`),
    ['101@1001 idle', '102@1001 idle', `${offered[0]!.data.agentExt}@1001 busy`],
    'phones idle after the lost legs, then the new offer; no ACD sign-in said again',
  );
  assert.equal(b.contactCenter.agentState(1001, '101').consecutiveMissed, 0);
  await b.close();
});

test('a stored call that cannot be read is reported and left; the others are taken over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-takeover-'));
  const a = await node(join(dir, 'a.db'));
  const leg = a.switch.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
  const row = a.liveState.takeover.call(1001, leg.smdrCallId)!;
  await a.close();
  const b = await node(join(dir, 'b.db'));
  const h = heard(b);
  const stored = (smdrCallId: string, data: unknown) => ({
    ...row,
    smdrCallId,
    data,
    tenantId: 1001,
    ownerNode: 'a',
    epoch: 0,
    updatedAt: 0,
  });
  const result = b.liveState.takeover.takeOver(1001, {
    calls: [
      stored('garbage', { call: { smdrCallId: 'garbage', legs: 7 } }),
      stored(leg.smdrCallId, row.data),
    ],
    agents: [],
    devices: [],
  });
  assert.deepEqual(
    result.failed.map((f) => f.smdrCallId),
    ['garbage'],
  );
  assert.deepEqual(result.ended, [leg.smdrCallId]);
  assert.deepEqual(
    h.calls('101@1001').map((e) => e.name),
    ['end'],
  );
  await b.close();
});

test('a call stored before the history table, its segments in its data, is taken over with them', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-takeover-'));
  const a = await node(join(dir, 'a.db'));
  const leg = a.switch.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
  const row = a.liveState.takeover.call(1001, leg.smdrCallId)!;
  const steps = (row.history as { text: string }[]).map((x) => x.text);
  assert.ok(steps.length > 0);
  await a.close();
  const b = await node(join(dir, 'b.db'));
  const old = row.data as { call: object };
  const result = b.liveState.takeover.takeOver(1001, {
    calls: [
      {
        ...row,
        data: { ...old, call: { ...old.call, segments: row.history } },
        history: [],
        tenantId: 1001,
        ownerNode: 'a',
        epoch: 0,
        updatedAt: 0,
      },
    ],
    agents: [],
    devices: [],
  });
  assert.deepEqual(result.ended, [leg.smdrCallId]);
  await b.liveState.journal.flush();
  const record = await b.callRecords.get(1001, leg.smdrCallId);
  assert.deepEqual(
    (record?.data as unknown as CallRecordData).segments.map((x) => x.text),
    [...steps, 'Disconnected (node lost)'],
  );
  await b.close();
});

test('a taken-over tenant: its phones are registered as the previous owner had them, without events', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-takeover-')), 't.db');
  const a = await node(file);
  a.switch.unregisterDevice(phone('102'));
  assert.equal(a.switch.isRegistered(phone('102')), false);
  await a.liveState.journal.flush();
  await a.close();

  const b = await node(file);
  const h = heard(b);
  assert.equal(b.switch.isRegistered(phone('102')), true, 'provisioned: registered');
  const left = await b.liveState.store.loadAll();
  b.liveState.takeover.takeOver(1001, left);
  assert.equal(b.switch.isRegistered(phone('102')), false, 'as the previous owner had it');
  assert.equal(b.switch.presence(1001, '102').reachability, 'unavailable');
  assert.equal(h.events.length, 0, 'nothing said: nothing changed for the world');
  // The phone's next change is told as any change.
  b.switch.registerDevice(phone('102'));
  assert.deepEqual(
    h.events.filter((e) => e.type === 'device').map((e) => e.type === 'device' && e.registered),
    [true],
  );
  await b.close();
});

test('a change no event tells is kept too: an outside caller’s digit at the menu', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'sb-takeover-')), 't.db');
  const a = await node(file);
  // An outside caller reaches Acme's menu (700) and presses a digit it does not know: a step of
  // the call's timeline, and no event (the caller has no account, the menu says nothing).
  const { pstnCallId } = a.switch.pstnCall({ from: '+15551230003', to: '+15555550100', callerName: 'Rae' });
  const smdrCallId = a.switch.leg(pstnCallId)!.smdrCallId;
  await a.liveState.journal.flush();
  const events = heard(a);
  a.switch.pstnDigits(pstnCallId, '7');
  assert.deepEqual(events.events, [], 'nothing told');
  await a.liveState.journal.flush();
  await a.close();

  const b = await node(file);
  const left = await b.liveState.store.loadAll();
  const row = left.calls.find((c) => c.smdrCallId === smdrCallId);
  assert.ok(row, 'the call is stored');
  assert.match(JSON.stringify(row.history), /Caller pressed 7/, 'the step is in what the next owner reads');
  await b.close();
});
