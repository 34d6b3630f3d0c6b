// The floor a read's p99 stands on: bench:scale's fixed-rate client (`fixedRate`, 500 requests a
// second for one second) against the bare reference server, window after window, with this
// process's own event-loop delay in each window. Not a benchmark with a budget: it shows how much
// of a p99 the machine and the client make on their own (docs/benchmarks.md).
//   npx tsx bench/latency-floor.ts [path, default /hello] (BENCH_WINDOWS, default 8)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fixedRate, pinSelf, SERVER_CORE, startChild } from './lib.js';

pinSelf();
const reference = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '0'], {
  core: SERVER_CORE,
});
const url = `http://127.0.0.1:${reference.port}${process.argv[2] ?? '/hello'}`;
for (let w = 0; w < Number(process.env.BENCH_WINDOWS ?? 8); w++) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const r = await fixedRate({ url, rate: 500, durationS: 1 });
  delay.disable();
  const ms = (ns: number) => (ns / 1e6).toFixed(2);
  console.log(
    `window ${w + 1}: p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(2)} ms, ` +
      `${r.samples.filter((x) => x > 3).length} over 3 ms; client loop delay p99 ${ms(delay.percentile(99))} ms, ` +
      `max ${ms(delay.max)} ms`,
  );
}
await reference.stop();
