import { VirtualClock } from '../../../src/core/clock.js';
import { ContactCenter } from '../../../src/contact-center/contact-center.js';
import type { CcEvent } from '../../../src/contact-center/types.js';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory, type EntityStore } from '../../../src/directory/directory.js';
import { CallRecordStore } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import type { QueuedCall } from '../../../src/switch/switch-facts.js';
import type { CallEndedEvent, CallEvent } from '../../../src/switch/types.js';
import { FakeSwitch } from './fake-switch.js';

const memoryStore = (): EntityStore => ({
  loadAll: async () => demoWorld(),
  load: async () => [],
  upsert: async () => {},
  insert: async () => true,
  remove: async () => {},
  replaceAll: async () => {},
});

const TENANT = 1001;

/** The contact center over the demo world, a fake switch, the virtual clock and in-memory SQLite. */
export async function ccWorld() {
  const directory = await Directory.load(memoryStore());
  const clock = new VirtualClock();
  const sw = new FakeSwitch();
  const db = await openDatabase({ kind: 'sqlite', file: ':memory:' });
  const callRecords = new CallRecordStore(db);
  const events: CcEvent[] = [];
  const recordErrors: string[] = [];
  const cc = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    callRecords,
    publish: (e) => events.push(e),
    onRecordError: (_err, smdrCallId) => recordErrors.push(smdrCallId),
  });
  sw.setFactListener((f) => cc.hear(f));
  /** The switch's ACD facts of the demo tenant, told as the switch tells them. */
  const port = {
    callQueued: (call: QueuedCall) =>
      sw.tell({ type: 'acd', name: 'callQueued', tenantId: call.tenantId, at: call.at, call }),
    offerAnswered: (smdrCallId: string, agentExt: string, at: number) =>
      sw.tell({ type: 'acd', name: 'offerAnswered', tenantId: TENANT, smdrCallId, agentExt, at }),
    offerFailed: (smdrCallId: string, agentExt: string, reason: string, at: number) =>
      sw.tell({ type: 'acd', name: 'offerFailed', tenantId: TENANT, smdrCallId, agentExt, reason, at }),
    callEnded: (smdrCallId: string, at: number) =>
      sw.tell({ type: 'acd', name: 'queueCallEnded', tenantId: TENANT, smdrCallId, at }),
  };
  const settle = () => new Promise((r) => setImmediate(r));
  return {
    directory,
    clock,
    sw,
    db,
    callRecords,
    events,
    recordErrors,
    cc,
    port,
    settle,
    close: () => db.close(),
  };
}

/** A queue call of the demo tenant waiting in Sales (500), as the switch reports it. */
export const queuedCall = (smdrCallId: string, at: number, acdExt = '500'): QueuedCall => ({
  tenantId: TENANT,
  acdExt,
  smdrCallId,
  callerLegId: `${smdrCallId}0`,
  callerNumber: '+15551230001',
  callerName: 'Pat Caller',
  dialed: '+15555550150',
  at,
});

/** A call event the switch sends to an extension of the demo tenant. */
export function callEventFact(
  name: CallEvent['name'],
  ext: string,
  smdrCallId: string,
  at: number,
  fields: Record<string, unknown> = {},
): CallEvent {
  return {
    type: 'call',
    name,
    tenantId: TENANT,
    observed: `${ext}@${TENANT}`,
    callObserverId: `${smdrCallId}${ext}`,
    smdrCallId,
    at,
    fields,
  } as CallEvent;
}

/** The switch's end of a call of the demo tenant, with its record. */
export function callEndedFact(smdrCallId: string, startedAt: number, at: number): CallEndedEvent {
  return {
    type: 'callEnded',
    tenantId: TENANT,
    smdrCallId,
    at,
    record: {
      smdrCallId,
      tenantId: TENANT,
      from: { number: '101', name: 'Bob Brown', account: `101@${TENANT}` },
      to: { number: '102', name: 'Carol Chen', account: `102@${TENANT}` },
      direction: 'internal',
      startedAt,
      answeredAt: startedAt,
      endedAt: at,
      outcome: 'Answered',
      parties: [],
      segments: [{ at, kind: 'disconnected', text: 'Disconnected' }],
    },
  };
}
