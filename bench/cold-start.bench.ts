// Budget (DESIGN §7): cold start to listening, with the demo world, from a built tree: <= 1.5 s.
// Measured on an existing database (the usual restart) and on an empty one (first start, seeding).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChild, verdict } from './lib.js';

async function once(db: string): Promise<number> {
  const t0 = performance.now();
  const { child, port } = await startChild([
    'dist/cli/main.js',
    'serve',
    '--port',
    '0',
    '--db',
    db,
    '--log-level',
    'warn',
  ]);
  const ms = performance.now() - t0;
  const ok = (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (!ok) throw new Error('healthz failed');
  return ms;
}

const db = join(mkdtempSync(join(tmpdir(), 'sb-cold-')), 'cold.db');
const first = await once(db);
const runs: number[] = [];
for (let i = 0; i < 5; i++) runs.push(await once(db));
runs.sort((a, b) => a - b);
const median = runs[2];
console.log(`first start (empty database, seeding): ${first.toFixed(0)} ms`);
console.log(
  `restart on existing database: median ${median.toFixed(0)} ms (min ${runs[0].toFixed(0)}, max ${runs[4].toFixed(0)})  budget 1500 ms  ${verdict(median <= 1500)}`,
);
