// Budgets (DESIGN §7), each against a plain `ws` reference run in the same session:
//  1. POST call control -> event frame on the subscribed socket, 4,000 sockets open, 1,000 ops/s:
//     p99 <= 5 ms, 0 events lost.
//  2. One contact-center event fanned out to 1,000 supervisor sockets: >= 70% of plain ws frames/s.
//  3. An idle socket with a subscription set: <= 20 KiB server memory.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { basicHeader, startChild, startSwitchboard, tempDb, verdict } from './lib.js';

const SOCKETS = Number(process.env.BENCH_SOCKETS ?? 4000);
const SUPERVISORS = 1000;
const OPS = Number(process.env.BENCH_OPS ?? 3000);
const RATE = 1000;

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
function http(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; json: any }> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      url,
      {
        method,
        agent,
        headers: payload === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            json: text ? JSON.parse(text) : undefined,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** Opens n sockets in batches (a burst of thousands overflows the listen backlog). */
async function openSockets(
  url: string,
  n: number,
  headers: Record<string, string> = {},
  firstMessages?: string[],
): Promise<WebSocket[]> {
  const out: WebSocket[] = [];
  while (out.length < n) {
    const batch = Math.min(100, n - out.length);
    const opened = await Promise.all(
      Array.from(
        { length: batch },
        () =>
          new Promise<WebSocket>((resolve, reject) => {
            const ws = new WebSocket(url, { headers, perMessageDeflate: false });
            if (firstMessages) ws.once('message', (d) => (firstMessages.push(d.toString()), resolve(ws)));
            else ws.once('open', () => resolve(ws));
            ws.once('error', reject);
          }),
      ),
    );
    out.push(...opened);
  }
  return out;
}

/** Closed loop at most RATE ops/s: each op waits for its frame, so frames match ops one to one. */
async function latencyLoop(
  op: () => Promise<void>,
  waitFrame: () => Promise<void>,
): Promise<{ lat: number[]; lost: number; rate: number }> {
  const lat: number[] = [];
  let lost = 0;
  const t0 = performance.now();
  for (let i = 0; i < OPS; i++) {
    const due = t0 + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const start = performance.now();
    const frame = Promise.race([
      waitFrame().then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 1000)),
    ]);
    await op();
    if (await frame) lat.push(performance.now() - start);
    else lost++;
  }
  return { lat, lost, rate: OPS / ((performance.now() - t0) / 1000) };
}

function frameWaiter(ws: WebSocket, match: (msg: string) => boolean) {
  const waiting: (() => void)[] = [];
  ws.on('message', (d) => {
    if (match(d.toString())) waiting.shift()?.();
  });
  return () => new Promise<void>((r) => waiting.push(r));
}

const step = (m: string) => process.stderr.write(`[ws-bench] ${m}\n`);
// ---- reference --------------------------------------------------------------------------
const ref = await startChild(['--import', 'tsx', 'bench/ws-reference-server.ts']);
const refUrl = `127.0.0.1:${ref.port}`;
const refSockets = await openSockets(`ws://${refUrl}/`, SOCKETS);
step('reference sockets open');
const refWait = frameWaiter(refSockets[0], () => true);
const refLat = await latencyLoop(async () => {
  await http('POST', `http://${refUrl}/op?to=0`, {});
}, refWait);
for (const s of refSockets.slice(SUPERVISORS)) s.close();

async function fanout(
  sockets: WebSocket[],
  trigger: () => Promise<void>,
  perTrigger: number,
  triggers: number,
) {
  let received = 0;
  const expected = sockets.length * perTrigger * triggers;
  const done = new Promise<void>((resolve) => {
    for (const s of sockets)
      s.on('message', () => {
        if (++received === expected) resolve();
      });
  });
  const t0 = performance.now();
  for (let i = 0; i < triggers; i++) await trigger();
  await Promise.race([done, new Promise((r) => setTimeout(r, 30_000))]);
  const secs = (performance.now() - t0) / 1000;
  return { framesPerSec: received / secs, received, expected };
}
step('reference latency done');
const refFan = await fanout(
  refSockets.slice(0, SUPERVISORS),
  () => http('POST', `http://${refUrl}/broadcast?n=1`, {}).then(() => {}),
  1,
  200,
);
for (const s of refSockets) s.close();
ref.child.kill();

// ---- Switchboard ------------------------------------------------------------------------
const sb = await startSwitchboard(tempDb('ws'), [
  '--ws-max',
  '20000',
  '--ws-per-client',
  '20000',
  '--limit-per-client',
  '1000',
  '--limit-inflight',
  '1000',
]);
const base = `127.0.0.1:${sb.port}`;
const admin = { authorization: basicHeader('100@1001:1234') };
const bob = { authorization: basicHeader('101@1001:1234') };
const sim = { authorization: basicHeader('admin:admin') };

step('switchboard started');
const rssBefore = rssKiB(sb.child.pid!);
const hello: string[] = [];
const sockets = await openSockets(`ws://${base}/api/ws`, SOCKETS, admin, hello);
const ids = hello.map((m) => JSON.parse(m).webSocketId as string);
step('switchboard sockets open');
const setPaths: string[] = [];
for (const id of ids) {
  const r = await http('POST', `http://${base}/api/v1/subscriptions/ws/${id}/subscriptionsets`, admin);
  setPaths.push(String(r.headers.location));
}
const rssAfter = rssKiB(sb.child.pid!);
const perSocketKiB = (rssAfter - rssBefore) / SOCKETS;

step('subscription sets created');
await http('PUT', `http://${base}${setPaths[0]}/calleventaccounts`, admin, { eventAccounts: ['101@1001'] });
const made = await http('POST', `http://${base}/api/v1/calls`, bob, { from: '101@1001', to: '102' });
const callId = made.json.callId as string;
await new Promise((r) => setTimeout(r, 200));
await http('POST', `http://${base}/sim/v1/devices/ph1001-102/answer`, sim, {});
await new Promise((r) => setTimeout(r, 200));
const sbWait = frameWaiter(sockets[0], (m) => /"event":"(hold|resume)"/.test(m));
let held = false;
const sbLat = await latencyLoop(async () => {
  const r = await http('POST', `http://${base}/api/v1/calls/${callId}`, bob, {
    callRequest: held ? 'resumeHeldCall' : 'holdCall',
    myPartyId: '101@1001',
  });
  if (r.status >= 300) throw new Error(`call control answered ${r.status} ${JSON.stringify(r.json)}`);
  held = !held;
}, sbWait);
step('switchboard latency done');
for (const s of sockets) s.close();

// Contact-center fan-out: 1,000 supervisor sockets, agent state changes of 101.
const tok = await http(
  'POST',
  `http://${base}/6/v2/api/oauth/token`,
  {},
  { grant_type: 'password', username: '100@1001', password: '1234' },
);
const token = tok.json.access_token as string;
const ccSockets = await openSockets(`ws://${base}/6/v2/sock`, SUPERVISORS);
await Promise.all(
  ccSockets.map(
    (s) =>
      new Promise<void>((r) => {
        s.once('message', () => r());
        s.send(JSON.stringify({ request: 'connect', token }));
      }),
  ),
);
for (const s of ccSockets) s.send(JSON.stringify({ request: 'subscribe', events: ['agent_state_changed'] }));
await new Promise((r) => setTimeout(r, 500));
for (const s of ccSockets) s.removeAllListeners('message');
const bearer = { authorization: `Bearer ${token}` };
const ext101 = '5b0a0002-0000-4000-8000-000010010101';
let toggle = false;
const sbFan = await fanout(
  ccSockets,
  async () => {
    toggle = !toggle;
    const r = await http('POST', `http://${base}/6/v2/api/extensions/${ext101}`, bearer, {
      request: 'updateAgentState',
      name: toggle ? 'Break' : 'Ready',
    });
    if (r.status !== 200) throw new Error(`agent state answered ${r.status} ${JSON.stringify(r.json)}`);
  },
  1,
  200,
);
for (const s of ccSockets) s.close();
sb.child.kill();
agent.destroy();

// ---- report -----------------------------------------------------------------------------
const fmt = (xs: number[]) =>
  `p50 ${percentile(xs, 50).toFixed(2)} ms  p99 ${percentile(xs, 99).toFixed(2)} ms`;
console.log(`1. POST -> event frame, ${SOCKETS} sockets open, ${OPS} ops at <= ${RATE}/s`);
console.log(
  `   reference (plain ws):  ${fmt(refLat.lat)}  lost ${refLat.lost}  ${refLat.rate.toFixed(0)} ops/s`,
);
console.log(
  `   Switchboard:           ${fmt(sbLat.lat)}  lost ${sbLat.lost}  ${sbLat.rate.toFixed(0)} ops/s`,
);
console.log(
  `   budget p99 <= 5 ms and 0 lost: ${verdict(percentile(sbLat.lat, 99) <= 5 && sbLat.lost === 0)}`,
);
const ratio = sbFan.framesPerSec / refFan.framesPerSec;
console.log(`2. one contact-center event to ${SUPERVISORS} sockets, 200 events`);
console.log(
  `   reference (plain ws):  ${refFan.framesPerSec.toFixed(0)} frames/s (${refFan.received}/${refFan.expected})`,
);
console.log(
  `   Switchboard:           ${sbFan.framesPerSec.toFixed(0)} frames/s (${sbFan.received}/${sbFan.expected})`,
);
console.log(
  `   ratio ${ratio.toFixed(2)}  budget >= 0.70: ${verdict(ratio >= 0.7 && sbFan.received === sbFan.expected)}`,
);
console.log(
  `3. idle socket with a subscription set: ${perSocketKiB.toFixed(1)} KiB server RSS each (${SOCKETS} sockets)  budget <= 20 KiB: ${verdict(perSocketKiB <= 20)}`,
);
process.exit(0);
