// Budget (docs/decisions.md §1.12): cold start to listening, with the demo world, from a built
// tree: <= 1.5 s.
// Measured from spawning `node dist/cli/main.js serve` (pinned to core 0) to its "listening" line:
// once on an empty database (the demo world is seeded), then restarts on that database, then
// restarts on the scale world (issue 19: `seed --scale 16`, 32 tenants and a year of calls, kept
// between runs by scale-db.ts). The server listens once it has loaded, so listening is ready:
// each start's /readyz must answer 200 at once.
import { fmt, median, Report, startSwitchboard, tempDb } from './lib.js';
import { scaleDb } from './scale-db.js';

const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 7);
const SCALE = Number(process.env.BENCH_SCALE ?? 16);
const BUDGET_MS = 1500;

const report = new Report('cold-start');

async function once(db: string): Promise<number> {
  const t0 = performance.now();
  const sb = await startSwitchboard(db);
  const ms = performance.now() - t0;
  const ready = await fetch(`http://127.0.0.1:${sb.port}/readyz`);
  await sb.stop();
  if (ready.status !== 200) throw new Error(`readyz answered ${ready.status}`);
  return ms;
}

const firsts: number[] = [];
for (let i = 0; i < 3; i++) firsts.push(await once(tempDb('cold')));
const db = tempDb('cold');
await once(db);
const restarts: number[] = [];
for (let i = 0; i < RESTARTS; i++) restarts.push(await once(db));

const scaled = await scaleDb(SCALE);
const scaleRestarts: number[] = [];
for (let i = 0; i < RESTARTS; i++) scaleRestarts.push(await once(scaled.file));

const range = (xs: number[]) => `min ${fmt(Math.min(...xs))}, max ${fmt(Math.max(...xs))}`;
report.figure('firstStartMs', firsts);
report.figure('restartMs', restarts);
report.check({
  what: 'first start: empty database, demo world seeded',
  measured: `median ${fmt(median(firsts))} ms (${range(firsts)}, ${firsts.length} runs)`,
  budget: `<= ${fmt(BUDGET_MS)} ms`,
  pass: median(firsts) <= BUDGET_MS,
});
report.check({
  what: 'restart on the demo-world database',
  measured: `median ${fmt(median(restarts))} ms (${range(restarts)}, ${restarts.length} runs)`,
  budget: `<= ${fmt(BUDGET_MS)} ms`,
  pass: median(restarts) <= BUDGET_MS,
});
report.figure('scaleRestartMs', scaleRestarts);
report.check({
  what: `restart on the scale world ${SCALE} (${SCALE * 2} tenants, ${fmt(62_500 * SCALE)} calls)`,
  measured: `median ${fmt(median(scaleRestarts))} ms (${range(scaleRestarts)}, ${scaleRestarts.length} runs)`,
  budget: `<= ${fmt(BUDGET_MS)} ms`,
  pass: median(scaleRestarts) <= BUDGET_MS,
});
report.finish();
