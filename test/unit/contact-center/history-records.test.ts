import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import type { VirtualClock } from '../../../src/core/clock.js';
import {
  type CallPlan,
  type HistoryAgent,
  historyRecord,
} from '../../../src/contact-center/history-records.js';
import { DEFAULTS } from '../../../src/server/config.js';
import { createRuntime, type Runtime } from '../../../src/server/runtime.js';
import type { CallRecord } from '../../../src/store/call-records.js';
import type { CallRecordData } from '../../../src/switch/types.js';

/**
 * Each kind of generated call against the same call made through the real switch and contact
 * center: with the real call's ids and instants, the generated record is the real one, field for
 * field, and is found by the same search numbers.
 */

let rt: Runtime;
let clock: VirtualClock;
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};
const advance = async (ms: number) => {
  clock.advance(ms);
  await settle();
};

before(async () => {
  rt = await createRuntime(
    { ...DEFAULTS, db: ':memory:', clock: 'virtual', sim: false, logLevel: 'silent' },
    pino({ level: 'silent' }),
  );
  clock = rt.clock as VirtualClock;
});
after(() => rt.close());

/** The newest record of the tenant, as stored, and the numbers its search finds it by. */
async function lastRecord(tenantId: number) {
  await rt.contactCenter.recordsWritten();
  const [record] = await rt.callRecords.find({ tenantId, limit: 1 });
  const keys = await rt.db.kysely
    .selectFrom('call_records')
    .select(['calling_key', 'called_key'])
    .where('smdr_call_id', '=', record.smdrCallId)
    .executeTakeFirstOrThrow();
  return { record, keys, data: record.data as unknown as CallRecordData };
}

/** The generated record as it reads back from the store, and its search numbers. */
function generated(plan: CallPlan) {
  const r = historyRecord(plan);
  const { calling, called, ...stored } = r;
  const digits = (n: string) => n.replace(/[^0-9*#]/g, '');
  return {
    record: { ...stored, data: JSON.parse(JSON.stringify(r.data)) } as CallRecord,
    keys: { calling_key: digits(calling!), called_key: digits(called!) },
  };
}

const segmentAt = (d: CallRecordData, kind: string) => d.segments.find((s) => s.kind === kind)!.at;
const party = (tenantId: number, ext: string) => ({ ext, name: rt.directory.extension(tenantId, ext)!.name });
const agent = (tenantId: number, ext: string): HistoryAgent => ({
  ...party(tenantId, ext),
  recordingType: rt.directory.extension(tenantId, ext)!.agent!.recordingType,
});
/** The phone an ACD call rings now. */
function offeredPhone(): string {
  const ringing = rt.switch
    .snapshot()
    .devices.filter((d) =>
      d.calls.some((id) => ['offered', 'ringing'].includes(rt.switch.leg(id)?.state ?? '')),
    );
  assert.equal(ringing.length, 1, 'one phone rings');
  return ringing[0].deviceId;
}

async function check(tenantId: number, plan: (d: CallRecordData, r: CallRecord) => CallPlan) {
  const real = await lastRecord(tenantId);
  const made = generated(plan(real.data, real.record));
  assert.deepEqual(made.record, real.record);
  assert.deepEqual(made.keys, real.keys);
}

const common = (r: CallRecord, hangsUp: 'caller' | 'callee') => ({
  smdrCallId: r.smdrCallId,
  tenantId: r.tenantId,
  startedAt: r.startedAt,
  endedAt: r.endedAt,
  hangsUp,
});

test('internal call, answered, ended by the callee', async () => {
  rt.switch.makeCall({ tenantId: 1002, fromExt: '201', to: '202' });
  await advance(2000);
  rt.switch.deviceAnswer('ph1002-202');
  await advance(20_000);
  rt.switch.deviceHangup('ph1002-202');
  await advance(100);
  await check(1002, (_d, r) => ({
    ...common(r, 'callee'),
    kind: 'internal',
    caller: party(1002, '201'),
    callee: party(1002, '202'),
    answeredAt: r.answeredAt!,
  }));
});

test('internal call, not answered', async () => {
  rt.switch.makeCall({ tenantId: 1001, fromExt: '101', to: '102' });
  await advance(3000);
  rt.switch.deviceHangup('ph1001-101');
  await advance(100);
  await check(1001, (_d, r) => ({
    ...common(r, 'caller'),
    kind: 'internal',
    caller: party(1001, '101'),
    callee: party(1001, '102'),
  }));
});

test('call to a hunt group, answered by a member', async () => {
  rt.switch.makeCall({ tenantId: 1001, fromExt: '105', to: '600' });
  await advance(2000);
  const phone = offeredPhone();
  rt.switch.deviceAnswer(phone);
  await advance(30_000);
  rt.switch.deviceHangup('ph1001-105');
  await advance(100);
  await check(1001, (_d, r) => ({
    ...common(r, 'caller'),
    kind: 'group',
    caller: party(1001, '105'),
    group: party(1001, '600'),
    answerer: party(1001, phone.split('-')[1]),
    answeredAt: r.answeredAt!,
  }));
});

test('outside call, answered and not answered', async () => {
  rt.switch.makeCall({ tenantId: 1001, fromExt: '105', to: '+15550003333' });
  await advance(2500); // outside numbers answer after 2 s
  await advance(60_000);
  rt.switch.deviceHangup('ph1001-105');
  await advance(100);
  const outbound = (r: CallRecord, answeredAt?: number): CallPlan => ({
    ...common(r, 'caller'),
    kind: 'outbound',
    caller: party(1001, '105'),
    number: r.to,
    ...(answeredAt === undefined ? {} : { answeredAt }),
  });
  await check(1001, (_d, r) => outbound(r, r.answeredAt!));

  rt.switch.setPstnNumber('+15550003334', { answer: 'manual' });
  rt.switch.makeCall({ tenantId: 1001, fromExt: '105', to: '+15550003334' });
  await advance(8000);
  rt.switch.deviceHangup('ph1001-105');
  await advance(100);
  await check(1001, (_d, r) => outbound(r));
});

test('outside caller into an ACD: answered (On Demand), abandoned, and answered by a Mandatory agent', async () => {
  const queue = (d: CallRecordData, r: CallRecord, hangsUp: 'caller' | 'callee', ext: string): CallPlan => ({
    ...common(r, hangsUp),
    kind: 'queue',
    caller: r.from,
    dialed: r.to,
    acd: party(1001, d.acd!),
    agent: agent(1001, ext),
    offeredAt: segmentAt(d, 'offered'),
    ...(r.answeredAt === null ? {} : { answeredAt: r.answeredAt }),
  });
  rt.switch.pstnCall({ from: '+15550001111', to: '+15555550150' });
  await advance(1000);
  let phone = offeredPhone();
  rt.switch.deviceAnswer(phone);
  await advance(90_000);
  rt.switch.deviceHangup(phone);
  await advance(100);
  await check(1001, (d, r) => queue(d, r, 'callee', phone.split('-')[1]));

  const abandoned = rt.switch.pstnCall({ from: '+15550002222', to: '+15555550150' });
  await advance(5000);
  phone = offeredPhone();
  rt.switch.pstnHangup(abandoned.pstnCallId);
  await advance(100);
  await check(1001, (d, r) => queue(d, r, 'caller', phone.split('-')[1]));

  for (const ext of ['102', '103']) rt.contactCenter.setAgentState(1001, ext, 'Lunch');
  const mandatory = rt.switch.pstnCall({ from: '+15550006666', to: '+15555550150' });
  await advance(1000);
  assert.equal(offeredPhone(), 'ph1001-101', 'Bob (Mandatory) is the only agent ready');
  rt.switch.deviceAnswer('ph1001-101');
  await advance(45_000);
  rt.switch.pstnHangup(mandatory.pstnCallId);
  await advance(100);
  await check(1001, (d, r) => queue(d, r, 'caller', '101'));
  for (const ext of ['102', '103']) rt.contactCenter.setAgentState(1001, ext, 'Ready');
});

test('outside caller through the auto attendant into an ACD', async () => {
  const call = rt.switch.pstnCall({ from: '+15550004444', to: '+15555550100' });
  await advance(2000);
  rt.switch.pstnDigits(call.pstnCallId, '2');
  await advance(2000);
  const phone = offeredPhone();
  rt.switch.deviceAnswer(phone);
  await advance(30_000);
  rt.switch.pstnHangup(call.pstnCallId);
  await advance(100);
  await check(1001, (d, r) => ({
    ...common(r, 'caller'),
    kind: 'queue',
    caller: r.from,
    dialed: r.to,
    menu: { attendant: party(1001, '700'), digit: '2', at: segmentAt(d, 'redirected') },
    acd: party(1001, d.acd!),
    agent: agent(1001, phone.split('-')[1]),
    offeredAt: segmentAt(d, 'offered'),
    answeredAt: r.answeredAt!,
  }));
});

test('an agent dials out through an outbound queue (On Demand and Mandatory)', async () => {
  const oq = rt.directory.outboundQueues(1001)[0];
  for (const ext of ['102', '101']) {
    rt.contactCenter.dial(1001, ext, '+15550005555', oq.id);
    await advance(2500);
    await advance(40_000);
    rt.switch.deviceHangup(`ph1001-${ext}`);
    await advance(100);
    await check(1001, (_d, r) => ({
      ...common(r, 'caller'),
      kind: 'dial',
      agent: agent(1001, ext),
      queue: { id: oq.id, name: oq.name, callerId: oq.callerId },
      number: '+15550005555',
      answeredAt: r.answeredAt!,
    }));
  }
});
