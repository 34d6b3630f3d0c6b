import { VirtualClock } from '../../../src/core/clock.js';
import { ContactCenter } from '../../../src/contact-center/contact-center.js';
import type { CcEvent } from '../../../src/contact-center/types.js';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory, type EntityStore } from '../../../src/directory/directory.js';
import { CallRecordStore } from '../../../src/store/call-records.js';
import { openDatabase } from '../../../src/store/database.js';
import type { QueuedCall } from '../../../src/switch/switch-facts.js';
import { FakeSwitch } from './fake-switch.js';

const memoryStore = (): EntityStore => ({
  loadAll: async () => demoWorld(),
  upsert: async () => {},
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
  const cc = new ContactCenter({
    directory,
    clock,
    switch: sw,
    db,
    callRecords,
    publish: (e) => events.push(e),
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
  return { directory, clock, sw, db, callRecords, events, cc, port, settle, close: () => db.close() };
}
