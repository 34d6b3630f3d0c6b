// The cost of webhooks (docs/events.md "Webhooks"): voice call events (hold and resume of one
// answered call, one after another) heard by a subscribed /api/ws socket on two Switchboard
// servers run in the same session, rounds alternating; one of them also has webhooks on the same
// account, delivering to a bare node:http receiver on loopback in this process.
//   budget: every event delivered to every webhook once, in order, with a valid signature; no
//     socket frame lost on either server.
//   reported: deliveries/s against the socket's frames/s without webhooks, and the event path
//     with webhooks (frames/s, server CPU per event, deliveries included) against without them.
//     No budget is set for the cost yet: the figures are in docs/benchmarks.md.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bestOf, type FanRound, fanRound } from './cc-supervisors.js';
import { basicHeader, fmt, Report, sleep, startSwitchboard, tempDb } from './lib.js';
import { closeHttp, closeSockets, http, openSockets } from './ws-lib.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 1);
const SECRET = 'whsec_bench-secret-0123456789abcdef';

const report = new Report('webhooks');
const step = (m: string) => process.stderr.write(`[webhooks] ${m}\n`);

// ---- the receiver: a bare node:http server that checks what it is sent ----------------------
interface HookLog {
  count: number;
  lastSequence: number;
  outOfOrder: number;
  badSignatures: number;
  ids: Set<string>;
  duplicates: number;
}
const hooks = new Map<string, HookLog>();
let delivered = 0;
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const { webhookId, sequence } = JSON.parse(body) as { webhookId: string; sequence: number };
    const id = String(req.headers['webhook-id']);
    const mac = createHmac('sha256', SECRET)
      .update(`${id}.${req.headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    let log = hooks.get(webhookId);
    if (!log) {
      log = { count: 0, lastSequence: 0, outOfOrder: 0, badSignatures: 0, ids: new Set(), duplicates: 0 };
      hooks.set(webhookId, log);
    }
    log.count++;
    if (sequence <= log.lastSequence) log.outOfOrder++;
    log.lastSequence = sequence;
    if (req.headers['webhook-signature'] !== `v1,${mac}`) log.badSignatures++;
    if (log.ids.has(id)) log.duplicates++;
    log.ids.add(id);
    delivered++;
    res.statusCode = 204;
    res.end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** Resolves once `n` deliveries have arrived in all (false after 60 s). */
async function deliveredAtLeast(n: number): Promise<boolean> {
  const end = Date.now() + 60_000;
  while (delivered < n && Date.now() < end) await sleep(2);
  return delivered >= n;
}

// ---- a server: one answered call of 101, a socket whose set hears 101's call events ----------
async function voiceServer(name: string, webhooks: number) {
  const sb = await startSwitchboard(tempDb(name), [
    '--webhooks-allow-http',
    '--webhooks-allow-private',
    '--limit-per-client',
    '1000',
    '--limit-inflight',
    '1000',
  ]);
  const base = `http://127.0.0.1:${sb.port}`;
  const admin = { authorization: basicHeader('100@1001:1234') };
  const caller = { authorization: basicHeader('101@1001:1234') };
  const hello: string[] = [];
  const sockets = await openSockets(`ws://127.0.0.1:${sb.port}/api/ws`, 1, {
    headers: admin,
    firstMessages: hello,
  });
  const id = JSON.parse(hello[0]).webSocketId as string;
  const set = await http('POST', `${base}/api/v1/subscriptions/ws/${id}/subscriptionsets`, admin);
  await http('PUT', `${base}${String(set.headers.location)}/calleventaccounts`, admin, {
    eventAccounts: ['101@1001'],
  });
  const call = await http('POST', `${base}/api/v1/calls`, caller, { from: '101@1001', to: '102' });
  if (call.status !== 201) throw new Error(`makeCall answered ${call.status} ${JSON.stringify(call.json)}`);
  await sleep(50);
  await http(
    'POST',
    `${base}/sim/v1/devices/ph1001-102/answer`,
    { authorization: basicHeader('admin:admin') },
    {},
  );
  await sleep(200);
  // Registered after the call was set up: the webhooks hear only the holds and resumes.
  for (let i = 0; i < webhooks; i++) {
    const r = await http('POST', `${base}/api/v1/webhooks`, admin, {
      url: receiverUrl,
      secret: SECRET,
      callEventAccounts: ['101@1001'],
    });
    if (r.status !== 201) throw new Error(`webhook answered ${r.status} ${JSON.stringify(r.json)}`);
  }
  let held = false;
  /** Hold or resume: one event frame to the socket and one delivery to each webhook. */
  const toggle = async () => {
    const r = await http('POST', `${base}/api/v1/calls/${String(call.json.callId)}`, caller, {
      callRequest: held ? 'resumeHeldCall' : 'holdCall',
      myPartyId: '101@1001',
    });
    if (r.status >= 300) throw new Error(`call control answered ${r.status} ${JSON.stringify(r.json)}`);
    held = !held;
  };
  return { sb, sockets, toggle };
}

const off = await voiceServer('webhooks-off', 0);
const on = await voiceServer('webhooks-on', WEBHOOKS);
step(`two servers; ${WEBHOOKS} webhook(s) on one, receiver at ${receiverUrl}`);
// Warm-up: both paths compiled, the receiver's first connections made.
await fanRound(off.sb, off.sockets, off.toggle, 50);
await fanRound(on.sb, on.sockets, on.toggle, 50);
await deliveredAtLeast(50 * WEBHOOKS);

interface HookRound {
  fan: FanRound;
  deliveries: number;
  deliveriesPerSec: number;
  /** Server CPU of the round until the last delivery arrived. */
  serverCpuMicros: number;
}
const offRounds: FanRound[] = [];
const onRounds: HookRound[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  offRounds.push(await fanRound(off.sb, off.sockets, off.toggle, EVENTS));
  const before = delivered;
  const cpu0 = on.sb.cpuMicros();
  const t0 = performance.now();
  const fan = await fanRound(on.sb, on.sockets, on.toggle, EVENTS);
  await deliveredAtLeast(before + EVENTS * WEBHOOKS);
  const secs = (performance.now() - t0) / 1000;
  const deliveries = delivered - before;
  onRounds.push({
    fan,
    deliveries,
    deliveriesPerSec: deliveries / secs,
    serverCpuMicros: on.sb.cpuMicros() - cpu0,
  });
  step(
    `round ${round}: without webhooks ${fmt(offRounds.at(-1)!.framesPerSec)} frames/s; with ` +
      `${fmt(fan.framesPerSec)} frames/s and ${fmt(deliveries / secs)} deliveries/s`,
  );
}
await closeSockets([...off.sockets, ...on.sockets]);
await Promise.all([off.sb.stop(), on.sb.stop()]);
closeHttp();
receiver.close();

const cpuPerEvent = (cpuMicros: number, events: number) => cpuMicros / events;
const { best: offBest } = bestOf(offRounds);
const offCpu = Math.min(...offRounds.map((r) => cpuPerEvent(r.serverCpuMicros, r.received)));
const onBestFrames = onRounds.reduce((a, b) => (b.fan.framesPerSec > a.fan.framesPerSec ? b : a));
const onBestDeliveries = onRounds.reduce((a, b) => (b.deliveriesPerSec > a.deliveriesPerSec ? b : a));
const onCpu = Math.min(...onRounds.map((r) => cpuPerEvent(r.serverCpuMicros, r.fan.received)));
const frameRatio = onBestFrames.fan.framesPerSec / offBest.framesPerSec;
const cpuFactor = onCpu / offCpu;
const logs = [...hooks.values()];
const sum = (f: (l: HookLog) => number) => logs.reduce((n, l) => n + f(l), 0);
const expected = (50 + EVENTS * ROUNDS) * WEBHOOKS;
const faults = {
  missing: expected - sum((l) => l.ids.size),
  duplicates: sum((l) => l.duplicates),
  outOfOrder: sum((l) => l.outOfOrder),
  badSignatures: sum((l) => l.badSignatures),
  framesLost: [...offRounds, ...onRounds.map((r) => r.fan)].reduce((n, f) => n + f.expected - f.received, 0),
};
const clean = Object.values(faults).every((n) => n === 0) && logs.length === WEBHOOKS;

report.figure('without-webhooks', { rounds: offRounds, best: offBest, serverCpuMicrosPerEvent: offCpu });
report.figure('with-webhooks', { webhooks: WEBHOOKS, rounds: onRounds, serverCpuMicrosPerEvent: onCpu });
report.figure('receiver', faults);
report.check({
  what: `deliveries to a local node:http receiver (${WEBHOOKS} webhook(s), ${fmt(EVENTS)} events a round)`,
  measured:
    `${fmt(onBestDeliveries.deliveriesPerSec)} deliveries/s (best of ${ROUNDS} rounds); ` +
    `${faults.missing} missing, ${faults.duplicates} duplicated, ${faults.outOfOrder} out of order, ` +
    `${faults.badSignatures} bad signatures`,
  reference: `socket without webhooks: ${fmt(offBest.framesPerSec)} frames/s (best of ${ROUNDS} rounds)`,
  budget: 'every event to every webhook once, in order, signed',
  pass: clean,
});
report.check({
  what: `call events to a subscribed socket with ${WEBHOOKS} webhook(s) on the same account`,
  measured:
    `${fmt(onBestFrames.fan.framesPerSec)} frames/s = ${frameRatio.toFixed(2)} of without; ` +
    `${fmt(onCpu)} µs server CPU per event = ${cpuFactor.toFixed(2)} times (deliveries included); ` +
    `${faults.framesLost} frames lost`,
  reference: `without webhooks: ${fmt(offBest.framesPerSec)} frames/s, ${fmt(offCpu)} µs server CPU per event`,
  budget: 'no frame lost (the cost is reported, no budget yet)',
  pass: faults.framesLost === 0,
});
report.finish();
