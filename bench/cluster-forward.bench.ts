// A forwarded command against a local one (docs/cluster.md § Forwarding), on the same two
// cluster nodes in the same run: node a owns tenant 1001, node b tenant 1002. The same command of
// tenant 1001 (make a call, then hang it up: two commands of the voice API) is sent to a, which
// runs it, and to b, which forwards it to a over NATS; one request in flight, rounds alternating.
//   forwarded p50 <= local p50 + 1 ms, forwarded p99 <= local p99 + 3 ms (each command)
// Both nodes are child processes on the server core, on a fresh PostgreSQL schema and the NATS
// server (127.0.0.1 unless SWITCHBOARD_TEST_PG_URL / SWITCHBOARD_TEST_NATS_URL say otherwise).
import pg from 'pg';
import { type Child, fmt, percentile, Report, SERVER_CORE, startChild } from './lib.js';
import { closeHttp, http } from './ws-lib.js';
import { PG_URL } from '../test/helpers/cluster-engines.js';

const PAIRS = Number(process.env.BENCH_OPS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP = 200;
const P50_BUDGET_MS = 1;
const P99_BUDGET_MS = 3;

const unique = `${process.pid}_${Date.now()}`;
const schema = `sb_bench_${unique}`;
const prefix = `sb.bench${unique}`;
const BOB = { authorization: `Basic ${Buffer.from('101@1001:1234').toString('base64')}` };

const report = new Report('cluster-forward');
const step = (m: string) => process.stderr.write(`[cluster-forward] ${m}\n`);

const startNode = (name: string) =>
  startChild(
    ['--import', 'tsx', 'bench/cluster-forward-node.ts', name, '1001=a,1002=b', '2', schema, prefix],
    {
      core: SERVER_CORE,
    },
  );
// One after the other: the first seeds the schema.
const a = await startNode('a');
const b = await startNode('b');
step('two nodes up');

type Kind = 'makeCall' | 'hangupCall';
/** Both nodes' CPU time (microseconds): the work a command costs, whatever the machine's load. */
const nodesCpu = () => a.cpuMicros() + b.cpuMicros();
const cpu = { local: 0, forwarded: 0 };
const samples = {
  local: { makeCall: [] as number[], hangupCall: [] as number[] },
  forwarded: { makeCall: [] as number[], hangupCall: [] as number[] },
};

/** One make + hang up on `node`, each command timed; both must succeed. */
async function pair(node: Child, into?: Record<Kind, number[]>): Promise<void> {
  const base = `http://127.0.0.1:${node.port}/api/v1/calls`;
  let t = performance.now();
  const made = await http('POST', base, BOB, { from: '101@1001', to: '102' });
  into?.makeCall.push(performance.now() - t);
  if (made.status !== 201) throw new Error(`makeCall answered ${made.status}: ${JSON.stringify(made.json)}`);
  t = performance.now();
  const hung = await http('POST', `${base}/${made.json.callId as string}`, BOB, {
    callRequest: 'hangupCall',
  });
  into?.hangupCall.push(performance.now() - t);
  if (hung.status !== 200) throw new Error(`hangupCall answered ${hung.status}`);
}

try {
  for (let i = 0; i < WARMUP; i++) {
    await pair(a);
    await pair(b);
  }
  for (let round = 1; round <= ROUNDS; round++) {
    let cpu0 = nodesCpu();
    for (let i = 0; i < PAIRS; i++) await pair(a, samples.local);
    cpu.local += nodesCpu() - cpu0;
    cpu0 = nodesCpu();
    for (let i = 0; i < PAIRS; i++) await pair(b, samples.forwarded);
    cpu.forwarded += nodesCpu() - cpu0;
    step(`round ${round}: ${PAIRS} pairs on each node`);
  }
} finally {
  await Promise.all([a.stop(), b.stop()]);
  closeHttp();
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`drop schema if exists ${schema} cascade`);
  await c.end();
}

const commands = PAIRS * ROUNDS * 2;
const cpuPer = { local: cpu.local / commands, forwarded: cpu.forwarded / commands };
report.figure('nodeCpuMicrosPerCommand', cpuPer);
step(
  `both nodes' CPU per command: ${fmt(cpuPer.local)} µs sent to the owner, ` +
    `${fmt(cpuPer.forwarded)} µs forwarded`,
);
for (const kind of ['makeCall', 'hangupCall'] as const) {
  const local = samples.local[kind];
  const forwarded = samples.forwarded[kind];
  const at = (xs: number[], p: number) => percentile(xs, p);
  const d50 = at(forwarded, 50) - at(local, 50);
  const d99 = at(forwarded, 99) - at(local, 99);
  report.figure(kind, {
    local: { p50: at(local, 50), p99: at(local, 99), n: local.length },
    forwarded: { p50: at(forwarded, 50), p99: at(forwarded, 99), n: forwarded.length },
  });
  report.check({
    what: `${kind} of tenant 1001 sent to its non-owner (forwarded over NATS), ${fmt(forwarded.length)} times`,
    measured: `p50 ${fmt(at(forwarded, 50), 2)} ms (+${fmt(d50, 2)}), p99 ${fmt(at(forwarded, 99), 2)} ms (+${fmt(d99, 2)})`,
    reference:
      `sent to its owner: p50 ${fmt(at(local, 50), 2)} ms, p99 ${fmt(at(local, 99), 2)} ms ` +
      `(both nodes' CPU per command: ${fmt(cpuPer.local)} µs, forwarded ${fmt(cpuPer.forwarded)} µs)`,
    budget: `<= +${P50_BUDGET_MS} ms p50, <= +${P99_BUDGET_MS} ms p99`,
    pass: d50 <= P50_BUDGET_MS && d99 <= P99_BUDGET_MS,
  });
}
report.finish();
