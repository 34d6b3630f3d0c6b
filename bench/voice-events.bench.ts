// Voice event budgets (docs/decisions.md §1.12), against a plain `ws` reference run in the same session:
//   POST call control -> event frame on the subscribed socket, 4,000 /api/ws sockets open with
//   subscription sets, 1,000 operations/s: p99 <= 5 ms, 0 events lost;
//   an idle socket with a subscription set: <= 20 KiB server memory.
// Servers run on core 0, this process (HTTP and socket clients) on core 1.
import { basicHeader, fmt, Report, SERVER_CORE, sleep, startChild, startSwitchboard, tempDb } from './lib.js';
import {
  closeHttp,
  closeSockets,
  drive,
  FrameWaiter,
  http,
  type LatencyResult,
  openSockets,
} from './ws-lib.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 4000);
const RATE = 1000;
const OPS = Number(process.env.BENCH_OPS ?? 10_000);
const P99_MS = 5;
const SOCKET_KIB = 20;

const report = new Report('voice-events');
const step = (m: string) => process.stderr.write(`[voice-events] ${m}\n`);

// ---- reference: plain ws, POST /op -> one frame to socket 0 -----------------------------
const ref = await startChild(['--import', 'tsx', 'bench/ws-reference-server.ts'], { core: SERVER_CORE });
const refBase = `127.0.0.1:${ref.port}`;
const refSockets = await openSockets(`ws://${refBase}/`, SOCKETS);
const refWaiter = new FrameWaiter(refSockets[0], (f) => String(JSON.parse(f).callId));
step(`reference: ${SOCKETS} sockets open`);
const refLat = await drive({
  ops: OPS,
  rate: RATE,
  lanes: 10,
  op: async (_lane, i) => {
    const frame = refWaiter.expect(String(i));
    await http('POST', `http://${refBase}/op?to=0&seq=${i}`, {});
    return frame;
  },
});
await closeSockets(refSockets);
await ref.stop();
step('reference done');

// ---- Switchboard --------------------------------------------------------------------------
const sb = await startSwitchboard(tempDb('voice-events'), [
  '--ws-max',
  String(SOCKETS + 100),
  '--ws-per-client',
  String(SOCKETS + 100),
  '--limit-per-client',
  '1000',
  '--limit-inflight',
  '1000',
]);
const base = `127.0.0.1:${sb.port}`;
const alice = { authorization: basicHeader('100@1001:1234') };
const bob = { authorization: basicHeader('101@1001:1234') };
const sim = { authorization: basicHeader('admin:admin') };

await sleep(500);
const rssBefore = sb.rssKiB();
const hello: string[] = [];
const sockets = await openSockets(`ws://${base}/api/ws`, SOCKETS, { headers: alice, firstMessages: hello });
const setPaths: string[] = [];
for (const m of hello) {
  const id = JSON.parse(m).webSocketId as string;
  const r = await http('POST', `http://${base}/api/v1/subscriptions/ws/${id}/subscriptionsets`, alice);
  if (r.status >= 300 || !r.headers.location) throw new Error(`subscription set answered ${r.status}`);
  setPaths.push(String(r.headers.location));
}
await sleep(500);
const perSocketKiB = (sb.rssKiB() - rssBefore) / SOCKETS;
step(`${SOCKETS} sockets with subscription sets`);

// Ten answered calls, two callers: operations on one call never overlap (one lane per call).
const callers = [
  { account: '101@1001', auth: bob },
  { account: '100@1001', auth: alice },
];
const called = ['102', '103', '104', '105', '150'];
await http('PUT', `http://${base}${setPaths[0]}/calleventaccounts`, alice, {
  eventAccounts: callers.map((c) => c.account),
});
const calls: { id: string; caller: (typeof callers)[number]; held: boolean }[] = [];
for (const caller of callers) {
  for (const to of called) {
    const r = await http('POST', `http://${base}/api/v1/calls`, caller.auth, { from: caller.account, to });
    if (r.status !== 201) throw new Error(`makeCall answered ${r.status} ${JSON.stringify(r.json)}`);
    calls.push({ id: r.json.callId as string, caller, held: false });
    await sleep(50);
    const a = await http('POST', `http://${base}/sim/v1/devices/ph1001-${to}/answer`, sim, {});
    if (a.status >= 300) throw new Error(`answer answered ${a.status} ${JSON.stringify(a.json)}`);
  }
}
await sleep(500);
const waiter = new FrameWaiter(sockets[0], (f) => {
  const e = JSON.parse(f) as { event?: string; callId?: number };
  return e.event === 'hold' || e.event === 'resume' ? `${e.callId}|${e.event}` : undefined;
});
let refused = 0;
const sbLat = await drive({
  ops: OPS,
  rate: RATE,
  lanes: calls.length,
  op: async (lane) => {
    const call = calls[lane];
    const frame = waiter.expect(`${Number(call.id)}|${call.held ? 'resume' : 'hold'}`);
    const r = await http('POST', `http://${base}/api/v1/calls/${call.id}`, call.caller.auth, {
      callRequest: call.held ? 'resumeHeldCall' : 'holdCall',
      myPartyId: call.caller.account,
    });
    if (r.status >= 300) {
      refused++;
      step(`call control answered ${r.status} ${JSON.stringify(r.json)}`);
    }
    call.held = !call.held;
    return frame;
  },
});
step('latency run done');
await closeSockets(sockets);
await sb.stop();
closeHttp();

// ---- report -------------------------------------------------------------------------------
const latText = (r: LatencyResult) =>
  `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms, ` +
  `${r.lost} lost, ${fmt(r.rate)} ops/s`;
const summary = (r: LatencyResult) => ({ ...r, latencies: undefined });
report.figure('reference', summary(refLat));
report.figure('switchboard', { ...summary(sbLat), refused, unexpectedFrames: waiter.unexpected });
report.figure('idleSocket', { sockets: SOCKETS, rssBeforeKiB: rssBefore, perSocketKiB });
report.check({
  what: `POST call control -> event frame, ${fmt(SOCKETS)} sockets, ${fmt(OPS)} ops at ${fmt(RATE)}/s`,
  measured: latText(sbLat),
  reference: `plain ws: ${latText(refLat)}`,
  budget: `p99 <= ${P99_MS} ms, 0 lost, >= 95% of ${fmt(RATE)} ops/s`,
  pass: sbLat.p99 <= P99_MS && sbLat.lost === 0 && refused === 0 && sbLat.rate >= RATE * 0.95,
});
report.check({
  what: 'idle socket with a subscription set',
  measured: `${perSocketKiB.toFixed(1)} KiB server RSS each (${fmt(SOCKETS)} sockets)`,
  budget: `<= ${SOCKET_KIB} KiB`,
  pass: perSocketKiB <= SOCKET_KIB,
});
report.finish();
