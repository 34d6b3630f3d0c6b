// Every read, not a sample: each GET of both APIs against the cached-auth 1 KB JSON reference of
// the same run (the reads and the interleaved load: reads-lib.ts, shared with bench:scale). Budget:
// every read >= 0.75 of the reference, a read below 0.90 at first judged on the median of three
// windows (reads-lib.ts, confirmSuspects). Servers run on core 0, autocannon (this process) on core 1.
import {
  fmt,
  type LoadResult,
  median,
  printTable,
  Report,
  SERVER_CORE,
  startChild,
  startSwitchboard,
  tempDb,
} from './lib.js';
import {
  CONFIRM_PASSES,
  confirmSuspects,
  discoverReads,
  loadInterleaved,
  type Read,
  UNLIMITED,
} from './reads-lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 2);
const CONNECTIONS = 10;
const RATIO = 0.75;
/** The aim: a read whose first window is below it is measured again (reads-lib.ts confirmSuspects). */
const AIM = Number(process.env.BENCH_CONFIRM_BELOW ?? 0.9);
/** At most this many voice routes per principal, so a runaway graph cannot make the run endless. */
const MAX_VOICE_ROUTES = Number(process.env.BENCH_MAX_ROUTES ?? 200);
/** `BENCH_ONLY=substring` measures only the reads whose name contains it (profiling one read). */
const ONLY = process.env.BENCH_ONLY;

const report = new Report('reads');
const reference = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '0'], {
  core: SERVER_CORE,
});
const sb = await startSwitchboard(tempDb('reads'), UNLIMITED);
const base = `http://127.0.0.1:${sb.port}`;
const { reads, close } = await discoverReads(base, { maxVoiceRoutes: MAX_VOICE_ROUTES, only: ONLY });
console.log(`${reads.length} reads`);

interface Row {
  read: Read;
  results: LoadResult[];
  ratios: number[];
  refRps: number[];
}
const measure = async (rows: Row[]) => {
  const loaded = await loadInterleaved(
    rows.map((r) => [{ read: r.read, server: sb }]),
    reference,
    { connections: CONNECTIONS, durationS: DURATION_S, among: [reference, sb] },
  );
  for (const [k, { results, refRps }] of loaded.entries()) {
    rows[k].results.push(results[0].result);
    rows[k].ratios.push(results[0].ratio);
    rows[k].refRps.push(refRps);
  }
};
const all: Row[] = reads.map((read) => ({ read, results: [], ratios: [], refRps: [] }));
await measure(all);
const confirmed = await confirmSuspects(all, (r) => r.ratios[0] < AIM, measure, 'reads');
/** A read's verdict: the median of its windows, with that window's other figures. */
const rows = all.map((r) => {
  const ratio = median(r.ratios);
  const k = r.ratios.indexOf(ratio);
  return { read: r.read, result: r.results[k], ratio, refRps: r.refRps[k], ratios: r.ratios };
});
const failed = all.reduce((n, r) => n + r.results.reduce((m, x) => m + x.errors + x.non2xx, 0), 0);
const slowest = [...rows].sort((a, b) => a.ratio - b.ratio);
console.log('\nslowest ten:');
printTable(
  ['read', 'req/s', 'ratio (median)', 'windows', 'p99 ms', 'server µs/req'],
  slowest
    .slice(0, 10)
    .map((r) => [
      r.read.name,
      fmt(r.result.rps),
      r.ratio.toFixed(2),
      r.ratios.map((x) => x.toFixed(2)).join(' '),
      String(r.result.p99),
      r.result.cpuPerRequest?.toFixed(1) ?? '',
    ]),
);
for (const r of rows)
  report.figure(r.read.name, {
    url: r.read.url.slice(base.length),
    ...r.result,
    referenceRps: r.refRps,
    ratio: r.ratio,
    ratios: r.ratios,
  });
const below = slowest.filter((r) => r.ratio < RATIO);
report.check({
  what:
    `${rows.length} reads of both APIs, each between two reference loads; the ${confirmed.length} ` +
    `below ${AIM} at first judged on the median of ${1 + CONFIRM_PASSES} windows`,
  measured:
    `slowest ${slowest[0]?.ratio.toFixed(2)} (${slowest[0]?.read.name}), ` +
    `median ${slowest[Math.floor(slowest.length / 2)]?.ratio.toFixed(2)}; ${below.length} below ${RATIO}`,
  budget: `every read >= ${RATIO} of the reference req/s`,
  pass: below.length === 0,
});
report.check({
  what: 'requests that failed or were not 2xx',
  measured: String(failed),
  budget: '0',
  pass: failed === 0,
});
close();
await Promise.all([reference.stop(), sb.stop()]);
report.finish();
