// Contact-center fan-out budget (DESIGN §7), against a plain `ws` reference run in the same session:
//   one contact-center event fanned out to 1,000 supervisor sockets: >= 70% of plain ws frames/s.
// Servers run on core 0, this process (HTTP and socket clients) on core 1.
import { fmt, Report, SERVER_CORE, sleep, startChild, startSwitchboard, tempDb } from './lib.js';
import { closeHttp, closeSockets, fanout, http, openSockets } from './ws-lib.js';

const SUPERVISORS = Number(process.env.BENCH_SUPERVISORS ?? 1000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 300);
const RATIO = 0.7;

const report = new Report('cc-fanout');
const step = (m: string) => process.stderr.write(`[cc-fanout] ${m}\n`);

// ---- reference: plain ws, POST /broadcast -> one ~300-byte frame to every socket --------
const ref = await startChild(['--import', 'tsx', 'bench/ws-reference-server.ts'], { core: SERVER_CORE });
const refBase = `127.0.0.1:${ref.port}`;
const refSockets = await openSockets(`ws://${refBase}/`, SUPERVISORS);
const broadcast = async () => void (await http('POST', `http://${refBase}/broadcast?n=1`, {}));
await fanout(refSockets, broadcast, 20);
const refCpu0 = ref.cpuMicros();
const refFan = await fanout(refSockets, broadcast, EVENTS);
const refCpu = ref.cpuMicros() - refCpu0;
await closeSockets(refSockets);
await ref.stop();
step('reference done');

// ---- Switchboard: agent 101's state changes, heard by 1,000 supervisor sockets ------------
const sb = await startSwitchboard(tempDb('cc-fanout'), [
  '--ws-max',
  String(SUPERVISORS + 100),
  '--ws-per-client',
  String(SUPERVISORS + 100),
  '--limit-per-client',
  '1000',
  '--limit-inflight',
  '1000',
]);
const base = `127.0.0.1:${sb.port}`;
const tok = await http(
  'POST',
  `http://${base}/6/v2/api/oauth/token`,
  {},
  { grant_type: 'password', username: '100@1001', password: '1234' },
);
const token = tok.json.access_token as string;
const sockets = await openSockets(`ws://${base}/6/v2/sock`, SUPERVISORS);
await Promise.all(
  sockets.map(
    (s) =>
      new Promise<void>((r) => {
        s.once('message', () => r());
        s.send(JSON.stringify({ request: 'connect', token }));
      }),
  ),
);
for (const s of sockets) s.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
await sleep(500);
for (const s of sockets) s.removeAllListeners('message');
step(`${SUPERVISORS} supervisor sockets subscribed`);

const bearer = { authorization: `Bearer ${token}` };
const ext101 = '5b0a0002-0000-4000-8000-000010010101';
let away = false;
const changeState = async () => {
  away = !away;
  const r = await http('POST', `http://${base}/6/v2/api/extensions/${ext101}`, bearer, {
    request: 'updateAgentState',
    name: away ? 'Break' : 'Ready',
  });
  if (r.status !== 200) throw new Error(`agent state answered ${r.status} ${JSON.stringify(r.json)}`);
};
await fanout(sockets, changeState, 20);
const sbCpu0 = sb.cpuMicros();
const sbFan = await fanout(sockets, changeState, EVENTS);
const sbCpu = sb.cpuMicros() - sbCpu0;
await closeSockets(sockets);
await sb.stop();
closeHttp();

// ---- report -------------------------------------------------------------------------------
// The receiving side (this process, one core) can bound both wall-clock rates alike, so the
// server's own cost is judged too: frames per second of the server's CPU time.
const perCpuSecond = (frames: number, micros: number) => frames / (micros / 1e6);
const ratio = sbFan.framesPerSec / refFan.framesPerSec;
const refPerCpu = perCpuSecond(refFan.received, refCpu);
const sbPerCpu = perCpuSecond(sbFan.received, sbCpu);
const cpuRatio = sbPerCpu / refPerCpu;
report.figure('reference', { ...refFan, serverCpuMicros: refCpu, framesPerServerCpuSecond: refPerCpu });
report.figure('switchboard', { ...sbFan, serverCpuMicros: sbCpu, framesPerServerCpuSecond: sbPerCpu });
report.check({
  what: `one contact-center event to ${fmt(SUPERVISORS)} sockets (${EVENTS} events)`,
  measured:
    `${fmt(sbFan.framesPerSec)} frames/s = ${ratio.toFixed(2)} of plain ws; ` +
    `${fmt(sbPerCpu)} frames per server CPU-second = ${cpuRatio.toFixed(2)} ` +
    `(${fmt(sbFan.received)}/${fmt(sbFan.expected)} frames)`,
  reference:
    `plain ws: ${fmt(refFan.framesPerSec)} frames/s, ${fmt(refPerCpu)} per server CPU-second ` +
    `(${fmt(refFan.received)}/${fmt(refFan.expected)})`,
  budget: `>= ${RATIO} of plain ws (wall clock and per server CPU-second), no frame lost`,
  pass: ratio >= RATIO && cpuRatio >= RATIO && sbFan.received === sbFan.expected,
});
report.finish();
