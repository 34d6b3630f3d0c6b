// The reads of bench:reads (reads-lib.ts) on the scale world at N = 1 and N = 16 (`seed --scale`:
// 2 and 32 tenants, a year of calls, 62,500 and 1,000,000; scale-db.ts keeps the seeded files):
// both servers run at once, and each read is measured on one right after the other, so a drift of
// this shared machine moves both. Per read and N: p50 and p99 at a fixed load (open loop,
// microsecond latencies), and throughput at saturation against the cached-auth reference loaded
// just before and after (the ratio of bench:reads).
// Budget (issue 19): p99 <= 20 ms, and flat from N = 1 to 16: p99 grows by at most 20 % (or by at
// most FLAT_SLACK_MS, the scheduler's noise on this VM), and the throughput's ratio to the reference
// falls by at most 20 %. A read whose answer itself grows with the world (the operator's list of
// every tenant) is shown but not judged flat. Servers on core 0, clients (this process) on core 1.
import {
  type Child,
  fixedRate,
  fmt,
  type LatencyResult,
  printTable,
  Report,
  SERVER_CORE,
  startChild,
  startSwitchboard,
} from './lib.js';
import { discoverReads, loadInterleaved, type Read, UNLIMITED } from './reads-lib.js';
import { type ScaleDb, scaleDb } from './scale-db.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 1);
const SCALES = [1, Number(process.env.BENCH_SCALE ?? 16)] as const;
/** The fixed load of the latency figures, requests a second. */
const RATE = Number(process.env.BENCH_RATE ?? 200);
const CONNECTIONS = 10;
const P99_BUDGET_MS = 20;
const FLAT = 0.2;
const FLAT_SLACK_MS = Number(process.env.BENCH_FLAT_SLACK_MS ?? 1);
const MAX_VOICE_ROUTES = Number(process.env.BENCH_MAX_ROUTES ?? 200);
const ONLY = process.env.BENCH_ONLY;

const report = new Report('scale');
const dbs: ScaleDb[] = [];
for (const n of SCALES) dbs.push(await scaleDb(n));
for (const [i, db] of dbs.entries()) if (db.seededS) report.figure(`seedSeconds N=${SCALES[i]}`, db.seededS);

const reference = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '0'], {
  core: SERVER_CORE,
});
const servers: Child[] = [];
for (const db of dbs) servers.push(await startSwitchboard(db.file, UNLIMITED));
const found: Awaited<ReturnType<typeof discoverReads>>[] = [];
for (const sb of servers)
  found.push(
    await discoverReads(`http://127.0.0.1:${sb.port}`, { maxVoiceRoutes: MAX_VOICE_ROUTES, only: ONLY }),
  );

/** The reads both worlds have, by name. */
const byName = found.map((f) => new Map(f.reads.map((r) => [r.name, r])));
const names = found[0].reads.map((r) => r.name).filter((n) => byName[1].has(n));
const missing = [...found[0].reads, ...found[1].reads]
  .filter((r) => !names.includes(r.name))
  .map((r) => r.name);
const size = async (r: Read) => (await (await fetch(r.url, { headers: r.headers })).arrayBuffer()).byteLength;
console.log(
  `${names.length} reads in both worlds${missing.length ? `; in one only: ${missing.join(', ')}` : ''}`,
);

interface Row {
  name: string;
  bytes: number[];
  latency: LatencyResult[];
  rps: number[];
  ratio: number[];
  cpu: number[];
  failed: number;
}
// First every read's latency at the fixed load, N = 1 then N = 16; then every read at saturation,
// both N back to back between two loads of the reference.
const targets = names.map((name) => byName.map((m) => m.get(name)!));
/** Which world goes first in row k: they take turns, so neither is always measured second. */
const order = (k: number) => (k % 2 === 0 ? [0, 1] : [1, 0]);
const latencies: LatencyResult[][] = [];
for (const [k, reads] of targets.entries()) {
  const latency: LatencyResult[] = [];
  for (const i of order(k))
    latency[i] = await fixedRate({
      url: reads[i].url,
      headers: reads[i].headers,
      rate: RATE,
      durationS: DURATION_S,
    });
  console.log(
    `${names[k].padEnd(86)} p50/p99 at ${RATE}/s: N=${SCALES[0]} ${ms(latency[0].p50)}/${ms(latency[0].p99)} ms, ` +
      `N=${SCALES[1]} ${ms(latency[1].p50)}/${ms(latency[1].p99)} ms`,
  );
  latencies.push(latency);
}
const loaded = await loadInterleaved(
  targets.map((reads, k) =>
    order(k).map((i) => ({ read: reads[i], server: servers[i], label: `N=${SCALES[i]} `.padEnd(6) })),
  ),
  reference,
  { connections: CONNECTIONS, durationS: DURATION_S },
);
const rows: Row[] = [];
for (const [k, name] of names.entries()) {
  // Back in world order (N = 1, then N = 16).
  const results = order(k).map((_, j) => loaded[k].results[order(k).indexOf(j)]);
  rows.push({
    name,
    bytes: await Promise.all(targets[k].map(size)),
    latency: latencies[k],
    rps: results.map((r) => r.result.rps),
    ratio: results.map((r) => r.ratio),
    cpu: results.map((r) => r.result.cpuPerRequest ?? Number.NaN),
    failed:
      latencies[k].reduce((n, l) => n + l.errors, 0) +
      results.reduce((n, r) => n + r.result.errors + r.result.non2xx, 0),
  });
}

function ms(x: number): string {
  return x.toFixed(2);
}
/** An answer a quarter larger in the larger world grows with it (the histories differ call by call, not in size). */
const grows = (r: Row) => r.bytes[1] > r.bytes[0] * 1.25;
const p99Flat = (r: Row) =>
  r.latency[1].p99 <= Math.max(r.latency[0].p99 * (1 + FLAT), r.latency[0].p99 + FLAT_SLACK_MS);
const rpsFlat = (r: Row) => r.ratio[1] >= r.ratio[0] * (1 - FLAT);

console.log(`\nevery read (p50/p99 in ms at ${RATE} req/s; throughput as a share of the reference):`);
printTable(
  [
    'read',
    `N=${SCALES[0]} p50/p99`,
    `N=${SCALES[1]} p50/p99`,
    'p99 ×',
    `ratio N=${SCALES[0]} → ${SCALES[1]}`,
    'server µs/req',
    'bytes',
  ],
  rows.map((r) => [
    r.name,
    `${ms(r.latency[0].p50)}/${ms(r.latency[0].p99)}`,
    `${ms(r.latency[1].p50)}/${ms(r.latency[1].p99)}`,
    (r.latency[1].p99 / r.latency[0].p99).toFixed(2),
    `${r.ratio[0].toFixed(2)} → ${r.ratio[1].toFixed(2)}`,
    `${r.cpu[0].toFixed(0)} → ${r.cpu[1].toFixed(0)}`,
    grows(r) ? `${fmt(r.bytes[0])} → ${fmt(r.bytes[1])} (grows)` : fmt(r.bytes[0]),
  ]),
);
for (const r of rows) report.figure(r.name, { ...r, scales: SCALES, rate: RATE });

const judged = rows.filter((r) => !grows(r));
const worst = (xs: Row[], key: (r: Row) => number) => [...xs].sort((a, b) => key(b) - key(a))[0];
const slowest = worst(rows, (r) => Math.max(r.latency[0].p99, r.latency[1].p99));
const overBudget = rows.filter((r) => Math.max(r.latency[0].p99, r.latency[1].p99) > P99_BUDGET_MS);
report.check({
  what: `p99 of ${rows.length} reads at ${RATE} req/s, N = ${SCALES[0]} and ${SCALES[1]}`,
  measured: slowest
    ? `largest ${ms(Math.max(slowest.latency[0].p99, slowest.latency[1].p99))} ms (${slowest.name}); ${overBudget.length} over`
    : 'no reads',
  budget: `<= ${P99_BUDGET_MS} ms`,
  pass: rows.length > 0 && overBudget.length === 0,
});
const p99Grown = judged.filter((r) => !p99Flat(r));
const steepest = worst(judged, (r) => r.latency[1].p99 / r.latency[0].p99);
report.check({
  what: `p99 from N = ${SCALES[0]} to ${SCALES[1]}, ${judged.length} reads whose answer is the same size`,
  measured: steepest
    ? `largest ${(steepest.latency[1].p99 / steepest.latency[0].p99).toFixed(2)}× (${steepest.name}); ${p99Grown.length} grew more`
    : 'no reads',
  budget: `<= ${1 + FLAT}× (or + ${FLAT_SLACK_MS} ms)`,
  pass: p99Grown.length === 0,
});
const rpsFell = judged.filter((r) => !rpsFlat(r));
const deepest = worst(judged, (r) => r.ratio[0] / r.ratio[1]);
report.check({
  what: `throughput (share of the reference) from N = ${SCALES[0]} to ${SCALES[1]}`,
  measured: deepest
    ? `largest fall to ${(deepest.ratio[1] / deepest.ratio[0]).toFixed(2)} (${deepest.name}); ${rpsFell.length} fell more`
    : 'no reads',
  budget: `>= ${1 - FLAT} of N = ${SCALES[0]}'s`,
  pass: rpsFell.length === 0,
});
const failed = rows.reduce((s, r) => s + r.failed, 0);
report.check({
  what: 'requests that failed or were not 2xx',
  measured: String(failed),
  budget: '0',
  pass: failed === 0,
});
if (rows.some(grows))
  console.log(
    `answers that grow with the world, not judged flat: ${rows
      .filter(grows)
      .map((r) => r.name)
      .join('; ')}`,
  );
for (const f of found) f.close();
await Promise.all([reference.stop(), ...servers.map((s) => s.stop())]);
report.finish();
