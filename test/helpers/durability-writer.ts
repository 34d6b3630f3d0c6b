// Child process for the durability test: writes through the directory and the call-record store,
// reports "written", then waits to be killed.
import pino from 'pino';
import { DEFAULTS } from '../../src/server/config.js';
import { createRuntime } from '../../src/server/runtime.js';

const db = process.argv[2];
const runtime = await createRuntime({ ...DEFAULTS, db, logLevel: 'silent' }, pino({ level: 'silent' }));
const ext = structuredClone(runtime.directory.extension(1001, '105')!);
ext.firstName = 'Durable';
await runtime.directory.put('extension', ext);
await runtime.directory.put('zone', { id: 'zone-kill', name: 'Written before SIGKILL' });
await runtime.directory.remove('did', 'did-1001-0150');
await runtime.callRecords.write({
  smdrCallId: '424242',
  tenantId: 1001,
  startedAt: 1,
  answeredAt: 2,
  endedAt: 3,
  from: '101',
  to: '102',
  outcome: 'Answered',
  data: { note: 'before kill' },
});
process.stdout.write('written\n');
setInterval(() => {}, 1000);
