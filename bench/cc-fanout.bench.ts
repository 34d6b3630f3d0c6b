// Contact-center fan-out budget (docs/decisions.md §1.12), against a plain `ws` reference run
// in the same session:
//   one contact-center event fanned out to 1,000 supervisor sockets: >= 70% of plain ws frames/s.
// Servers run on core 0, this process (HTTP and socket clients) on core 1.
import { bestOf, ccSupervisors, type FanRound, fanRound } from './cc-supervisors.js';
import { fmt, Report, SERVER_CORE, startChild } from './lib.js';
import { closeHttp, closeSockets, fanout, http, openSockets } from './ws-lib.js';

const SUPERVISORS = Number(process.env.BENCH_SUPERVISORS ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RATIO = 0.7;

const report = new Report('cc-fanout');
const step = (m: string) => process.stderr.write(`[cc-fanout] ${m}\n`);

// ---- reference: plain ws, POST /broadcast -> one ~300-byte frame to every socket --------
const ref = await startChild(['--import', 'tsx', 'bench/ws-reference-server.ts'], { core: SERVER_CORE });
const refBase = `127.0.0.1:${ref.port}`;
const refSockets = await openSockets(`ws://${refBase}/`, SUPERVISORS);
const broadcast = async () => void (await http('POST', `http://${refBase}/broadcast?n=1`, {}));
await fanout(refSockets, broadcast, 20);
step('reference ready');

// ---- Switchboard: agent 101's state changes, heard by 1,000 supervisor sockets ------------
const { sb, sockets, changeState } = await ccSupervisors('cc-fanout', SUPERVISORS);
step(`${SUPERVISORS} supervisor sockets subscribed`);

// Rounds alternate the two servers; each side's best round is judged (noise only ever lowers a
// round, and a single pair of runs moved the ratio by ±0.15 on this machine).
const refRounds: FanRound[] = [];
const sbRounds: FanRound[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  refRounds.push(await fanRound(ref, refSockets, broadcast, EVENTS));
  sbRounds.push(await fanRound(sb, sockets, changeState, EVENTS));
  step(
    `round ${round}: plain ws ${fmt(refRounds.at(-1)!.framesPerSec)} frames/s, ` +
      `Switchboard ${fmt(sbRounds.at(-1)!.framesPerSec)} frames/s`,
  );
}
await closeSockets(refSockets);
await closeSockets(sockets);
await Promise.all([ref.stop(), sb.stop()]);
closeHttp();

// ---- report -------------------------------------------------------------------------------
const { best: refFan, perCpu: refPerCpu } = bestOf(refRounds);
const { best: sbFan, perCpu: sbPerCpu } = bestOf(sbRounds);
const ratio = sbFan.framesPerSec / refFan.framesPerSec;
const cpuRatio = sbPerCpu / refPerCpu;
const lost = sbRounds.reduce((n, f) => n + f.expected - f.received, 0);
report.figure('reference', { rounds: refRounds, best: refFan, framesPerServerCpuSecond: refPerCpu });
report.figure('switchboard', { rounds: sbRounds, best: sbFan, framesPerServerCpuSecond: sbPerCpu });
report.check({
  what: `one contact-center event to ${fmt(SUPERVISORS)} sockets (${EVENTS} events)`,
  measured:
    `${fmt(sbFan.framesPerSec)} frames/s = ${ratio.toFixed(2)} of plain ws; ` +
    `${fmt(sbPerCpu)} frames per server CPU-second = ${cpuRatio.toFixed(2)} ` +
    `(best of ${ROUNDS} rounds; ${fmt(lost)} frames lost)`,
  reference:
    `plain ws: ${fmt(refFan.framesPerSec)} frames/s, ${fmt(refPerCpu)} per server CPU-second ` +
    `(best of ${ROUNDS} rounds)`,
  budget: `>= ${RATIO} of plain ws (wall clock and per server CPU-second), no frame lost`,
  pass: ratio >= RATIO && cpuRatio >= RATIO && lost === 0,
});
report.finish();
