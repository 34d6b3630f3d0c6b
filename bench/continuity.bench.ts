// The cost of event continuity (docs/events.md): contact-center events fanned out to supervisor
// sockets that asked for resume (every event journaled and sequenced) against the same sockets
// without it, on two Switchboard servers run in the same session, rounds alternating.
//   resume on: >= 0.8 of resume off (frames/s and frames per server CPU-second), no frame lost.
// Resume off is the fan-out of cc-fanout.bench.ts; its own budget is judged there.
// Webhook deliveries per second are measured by webhooks.bench.ts.
import { bestOf, ccSupervisors, type FanRound, fanRound } from './cc-supervisors.js';
import { fmt, Report } from './lib.js';
import { closeHttp, closeSockets } from './ws-lib.js';

const SUPERVISORS = Number(process.env.BENCH_SUPERVISORS ?? 500);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATIO = 0.8;

const report = new Report('continuity');
const step = (m: string) => process.stderr.write(`[continuity] ${m}\n`);

const off = await ccSupervisors('continuity-off', SUPERVISORS);
const on = await ccSupervisors('continuity-on', SUPERVISORS, { resume: true });
step(`${SUPERVISORS} sockets on each server`);

const offRounds: FanRound[] = [];
const onRounds: FanRound[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  offRounds.push(await fanRound(off.sb, off.sockets, off.changeState, EVENTS));
  onRounds.push(await fanRound(on.sb, on.sockets, on.changeState, EVENTS));
  step(
    `round ${round}: resume off ${fmt(offRounds.at(-1)!.framesPerSec)} frames/s, ` +
      `resume on ${fmt(onRounds.at(-1)!.framesPerSec)} frames/s`,
  );
}
await closeSockets(off.sockets);
await closeSockets(on.sockets);
await Promise.all([off.sb.stop(), on.sb.stop()]);
closeHttp();

const { best: offBest, perCpu: offPerCpu } = bestOf(offRounds);
const { best: onBest, perCpu: onPerCpu } = bestOf(onRounds);
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
