import { startSwitchboard, tempDb, verdict } from './lib.js';

async function once(db: string): Promise<number> {
  const t0 = performance.now();
  const { child, port } = await startSwitchboard(db);
  const ms = performance.now() - t0;
  const ok = (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  if (!ok) throw new Error('healthz failed');
  return ms;
}

const db = tempDb('cold');
const first = await once(db);
const runs: number[] = [];
for (let i = 0; i < 5; i++) runs.push(await once(db));
runs.sort((a, b) => a - b);
const median = runs[2];
console.log(`first start (empty database, seeding): ${first.toFixed(0)} ms`);
console.log(
  `restart on existing database: median ${median.toFixed(0)} ms (min ${runs[0].toFixed(0)}, max ${runs[4].toFixed(0)})  budget 1500 ms  ${verdict(median <= 1500)}`,
);
