// Every read, not a sample: each GET of both APIs against the cached-auth 1 KB JSON reference of
// the same run (the reads and the interleaved load: reads-lib.ts, shared with bench:scale). Budget:
// every read >= 0.75 of the reference. Servers run on core 0, autocannon (this process) on core 1.
import { fmt, printTable, Report, SERVER_CORE, startChild, startSwitchboard, tempDb } from './lib.js';
import { discoverReads, loadInterleaved, UNLIMITED } from './reads-lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 2);
const CONNECTIONS = 10;
const RATIO = 0.75;
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

const rows = (
  await loadInterleaved(
    reads.map((read) => [{ read, server: sb }]),
    reference,
    { connections: CONNECTIONS, durationS: DURATION_S },
  )
).map(({ results: [r], refRps }) => ({ read: r.target.read, result: r.result, ratio: r.ratio, refRps }));
const failed = rows.reduce((n, r) => n + r.result.errors + r.result.non2xx, 0);
const slowest = [...rows].sort((a, b) => a.ratio - b.ratio);
console.log('\nslowest ten:');
printTable(
  ['read', 'req/s', 'ratio', 'p99 ms', 'server µs/req'],
  slowest
    .slice(0, 10)
    .map((r) => [
      r.read.name,
      fmt(r.result.rps),
      r.ratio.toFixed(2),
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
  });
const below = slowest.filter((r) => r.ratio < RATIO);
report.check({
  what: `${rows.length} reads of both APIs, each between two reference loads`,
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
