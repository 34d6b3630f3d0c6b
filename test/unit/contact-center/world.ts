import { VirtualClock } from '../../../src/core/clock.js';
import { ContactCenter } from '../../../src/contact-center/contact-center.js';
import type { CcEvent } from '../../../src/contact-center/types.js';
import { demoWorld } from '../../../src/directory/demo-world.js';
import { Directory, type EntityStore } from '../../../src/directory/directory.js';
import { openDatabase } from '../../../src/store/database.js';
import { FakeSwitch } from './fake-switch.js';

const memoryStore = (): EntityStore => ({
  loadAll: async () => demoWorld(),
  upsert: async () => {},
  remove: async () => {},
  replaceAll: async () => {},
});

/** The contact center over the demo world, a fake switch, the virtual clock and in-memory SQLite. */
export async function ccWorld() {
  const directory = await Directory.load(memoryStore());
  const clock = new VirtualClock();
  const sw = new FakeSwitch();
  const db = await openDatabase({ kind: 'sqlite', file: ':memory:' });
  const events: CcEvent[] = [];
  const cc = new ContactCenter({ directory, clock, switch: sw, db, publish: (e) => events.push(e) });
  const port = cc.acdPort();
  const settle = () => new Promise((r) => setImmediate(r));
  return { directory, clock, sw, db, events, cc, port, settle, close: () => db.close() };
}
