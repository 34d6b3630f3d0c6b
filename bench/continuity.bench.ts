// The cost of event continuity (docs/events.md): contact-center events fanned out to supervisor
// sockets that asked for resume (every event journaled and sequenced) against the same sockets
// without it, on two Switchboard servers run in the same session, rounds alternating.
//   resume on: >= 0.8 of resume off (frames/s and frames per server CPU-second), no frame lost.
// Resume off is the fan-out of cc-fanout.bench.ts; its own budget is judged there.
// Webhook deliveries per second are not measured: webhooks are not built (docs/events.md).
import { ccSupervisors } from './cc-supervisors.js';
import { fmt, Report } from './lib.js';
import { closeHttp, closeSockets, fanout } from './ws-lib.js';

const SUPERVISORS = Number(process.env.BENCH_SUPERVISORS ?? 500);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATIO = 0.8;

const report = new Report('continuity');
const step = (m: string) => process.stderr.write(`[continuity] ${m}\n`);

const off = await ccSupervisors('continuity-off', SUPERVISORS);
const on = await ccSupervisors('continuity-on', SUPERVISORS, { resume: true });
step(`${SUPERVISORS} sockets on each server`);

type Fan = Awaited<ReturnType<typeof fanout>> & { serverCpuMicros: number };
const measure = async (side: typeof off): Promise<Fan> => {
  const cpu0 = side.sb.cpuMicros();
  const fan = await fanout(side.sockets, side.changeState, EVENTS);
  return { ...fan, serverCpuMicros: side.sb.cpuMicros() - cpu0 };
};
const offRounds: Fan[] = [];
const onRounds: Fan[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  offRounds.push(await measure(off));
  onRounds.push(await measure(on));
  step(
    `round ${round}: resume off ${fmt(offRounds.at(-1)!.framesPerSec)} frames/s, ` +
      `resume on ${fmt(onRounds.at(-1)!.framesPerSec)} frames/s`,
  );
}
await closeSockets(off.sockets);
await closeSockets(on.sockets);
await Promise.all([off.sb.stop(), on.sb.stop()]);
closeHttp();

const perCpuSecond = (f: Fan) => f.received / (f.serverCpuMicros / 1e6);
const bestBy = (rounds: Fan[], score: (f: Fan) => number) =>
  rounds.reduce((a, b) => (score(b) > score(a) ? b : a));
const offBest = bestBy(offRounds, (f) => f.framesPerSec);
const onBest = bestBy(onRounds, (f) => f.framesPerSec);
const offPerCpu = perCpuSecond(bestBy(offRounds, perCpuSecond));
const onPerCpu = perCpuSecond(bestBy(onRounds, perCpuSecond));
const ratio = onBest.framesPerSec / offBest.framesPerSec;
const cpuRatio = onPerCpu / offPerCpu;
const lost = onRounds.reduce((n, f) => n + f.expected - f.received, 0);
report.figure('resume-off', { rounds: offRounds, best: offBest, framesPerServerCpuSecond: offPerCpu });
report.figure('resume-on', { rounds: onRounds, best: onBest, framesPerServerCpuSecond: onPerCpu });
report.check({
  what: `one contact-center event to ${fmt(SUPERVISORS)} resumable sockets (${EVENTS} events)`,
  measured:
    `${fmt(onBest.framesPerSec)} frames/s = ${ratio.toFixed(2)} of resume off; ` +
    `${fmt(onPerCpu)} frames per server CPU-second = ${cpuRatio.toFixed(2)} ` +
    `(best of ${ROUNDS} rounds; ${fmt(lost)} frames lost)`,
  reference:
    `resume off: ${fmt(offBest.framesPerSec)} frames/s, ${fmt(offPerCpu)} per server CPU-second ` +
    `(best of ${ROUNDS} rounds)`,
  budget: `>= ${RATIO} of resume off (wall clock and per server CPU-second), no frame lost`,
  pass: ratio >= RATIO && cpuRatio >= RATIO && lost === 0,
});
report.finish();
