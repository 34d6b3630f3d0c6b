import { basicHeader, load, startChild, startSwitchboard, tempDb, verdict } from './lib.js';

const DURATION = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = 10;
const ROUNDS = 2;

const base = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '0']);
const sb = await startSwitchboard(tempDb('http'), ['--limit-per-client', '1000', '--limit-inflight', '1000']);
const sbUrl = `http://127.0.0.1:${sb.port}`;
const auth = { authorization: basicHeader('101@1001:1234') };

const tokenRes = await fetch(`${sbUrl}/6/v2/api/oauth/token`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ grant_type: 'password', username: '101@1001', password: '1234' }),
});
const token = ((await tokenRes.json()) as { access_token?: string }).access_token;
const agentStatePath =
  '/6/v2/api/tenants/5b0a0001-0000-4000-8000-000000001001/extensions/5b0a0002-0000-4000-8000-000010010101/agent_state';

const targets = [
  { name: 'reference: cached-auth 1 KB JSON', url: `http://127.0.0.1:${base.port}/cached`, headers: auth },
  { name: 'GET /api/v1/calls (Basic)', url: `${sbUrl}/api/v1/calls`, headers: auth },
  {
    name: 'GET agent_state (Bearer)',
    url: `${sbUrl}${agentStatePath}`,
    headers: { authorization: `Bearer ${token}` },
  },
];
for (const t of targets) {
  const probe = await fetch(t.url, { headers: t.headers });
  if (probe.status !== 200) console.warn(`warning: ${t.name} answers ${probe.status}`);
}

const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const t of targets) {
    const r = await load({ url: t.url, headers: t.headers, connections: CONNECTIONS, durationS: DURATION });
    if (r.errors || r.non2xx) console.warn(`  ${t.name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
    best.set(t.name, Math.max(best.get(t.name) ?? 0, r.rps));
    console.log(
      `round ${round + 1} ${t.name.padEnd(36)} ${r.rps.toFixed(0).padStart(7)} req/s  p99 ${r.p99} ms`,
    );
  }
}
const ref = best.get(targets[0].name)!;
console.log('\nthroughput vs reference (budget >= 0.75):');
for (const t of targets.slice(1)) {
  const ratio = best.get(t.name)! / ref;
  console.log(`  ${t.name.padEnd(36)} ratio ${ratio.toFixed(2)}  ${verdict(ratio >= 0.75)}`);
}
console.log('\np99 at half the reference load (budget <= 10 ms):');
for (const t of targets.slice(1)) {
  const r = await load({
    url: t.url,
    headers: t.headers,
    connections: CONNECTIONS,
    durationS: DURATION,
    rate: Math.round(ref / 2),
  });
  console.log(
    `  ${t.name.padEnd(36)} ${r.rps.toFixed(0)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ${verdict(r.p99 <= 10)}`,
  );
}
base.child.kill();
sb.child.kill();
