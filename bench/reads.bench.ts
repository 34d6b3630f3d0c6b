// Every read, not a sample: each GET of both APIs against the cached-auth 1 KB JSON reference of
// the same run. The voice reads are found by walking the HAL graph from the v1 root as a user, a
// tenant admin and the operator (each link once per route shape, list items, and lists again with
// `expand=item`); the contact-center reads are the specification's GET endpoints, as a tenant
// admin and as the telco admin. Each read is loaded between two loads of the reference, so a drift
// of the machine moves both sides of its ratio. Budget: every read >= 0.75 of the reference.
// Servers run on core 0, autocannon (this process) on core 1.
import WebSocket from 'ws';
import {
  basicHeader,
  fmt,
  load,
  type LoadResult,
  printTable,
  Report,
  SERVER_CORE,
  startChild,
  startSwitchboard,
  tempDb,
} from './lib.js';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 2);
const CONNECTIONS = 10;
const RATIO = 0.75;
/** At most this many voice routes per principal, so a runaway graph cannot make the run endless. */
const MAX_VOICE_ROUTES = Number(process.env.BENCH_MAX_ROUTES ?? 200);
/** `BENCH_ONLY=substring` measures only the reads whose name contains it (profiling one read). */
const ONLY = process.env.BENCH_ONLY;

const report = new Report('reads');
const reference = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '0'], {
  core: SERVER_CORE,
});
const sb = await startSwitchboard(tempDb('reads'), [
  '--limit-per-client',
  '1000',
  '--limit-inflight',
  '1000',
]);
const base = `http://127.0.0.1:${sb.port}`;

interface Read {
  name: string;
  url: string;
  headers: Record<string, string>;
}

const principals = [
  { who: 'user 101', auth: basicHeader('101@1001:1234'), cc: '101@1001' },
  { who: 'tenant admin 100', auth: basicHeader('100@1001:1234'), cc: '100@1001' },
  { who: 'operator', auth: basicHeader('admin:admin'), cc: 'admin' },
];

// ---- voice: the HAL graph ---------------------------------------------------------------

/** A live socket's id fills `{webSocketId}`; the socket stays open for the whole run. */
async function webSocketId(auth: string): Promise<{ id: string; ws: WebSocket }> {
  const ws = new WebSocket(`ws://127.0.0.1:${sb.port}/api/ws`, { headers: { authorization: auth } });
  const id = await new Promise<string>((ok, fail) => {
    ws.once('message', (d) => ok((JSON.parse(String(d)) as { webSocketId: string }).webSocketId));
    ws.once('error', fail);
  });
  return { id, ws };
}

const sockets: WebSocket[] = [];
/** A route's shape: every path segment that holds a digit or an account's `@` becomes `{id}`. */
const shape = (path: string) =>
  path.replace(/\/([^/?]+)/g, (m, seg: string) => (seg !== 'v1' && /\d|@/.test(seg) ? '/{id}' : m));

/** Fills the variables a benchmark can know; drops query templates; undefined when one is left. */
function fill(href: string, vars: Record<string, string>): string | undefined {
  const path = href
    .replace(/\{\?[^}]*\}/g, '')
    .replace(/\{(\w+)\}/g, (m, v: string) => (v in vars ? encodeURIComponent(vars[v]) : m));
  return path.includes('{') ? undefined : path;
}

type Hal = { _links?: Record<string, unknown>; _embedded?: Record<string, unknown> };
const hrefs = (links: Record<string, unknown> | undefined): string[] =>
  Object.entries(links ?? {})
    .filter(([rel]) => rel !== 'curies')
    .flatMap(([, l]) => (Array.isArray(l) ? l : [l]))
    .map((l) => (l as { href?: string }).href)
    .filter((h): h is string => typeof h === 'string');

async function voiceReads(p: (typeof principals)[number]): Promise<Read[]> {
  const { id, ws } = await webSocketId(p.auth);
  sockets.push(ws);
  const vars: Record<string, string> = { webSocketId: id, accountId: 'PL1@1001', extension: '101', rel: 'x' };
  const headers = { authorization: p.auth };
  const langs = (await (await fetch(`${base}/api/v1/languages`, { headers })).json()) as Hal;
  const firstLang = Object.values(langs._embedded ?? {}).flat()[0] as { langCode?: string } | undefined;
  if (firstLang?.langCode) vars.langCode = firstLang.langCode;
  const seen = new Set<string>();
  const reads: Read[] = [];
  const queue = ['/api/v1'];
  while (queue.length && reads.length < MAX_VOICE_ROUTES) {
    const path = queue.shift()!;
    if (seen.has(shape(path))) continue;
    seen.add(shape(path));
    const r = await fetch(`${base}${path}`, { headers });
    if (r.status !== 200) continue;
    const doc = (await r.json()) as Hal;
    reads.push({ name: `voice ${p.who} GET ${shape(path)}`, url: `${base}${path}`, headers });
    const embedded = Object.values(doc._embedded ?? {}).flatMap((v) => (Array.isArray(v) ? v : [v]));
    if (embedded.length && !path.includes('?')) {
      const expanded = `${path}?expand=item`;
      const e = await fetch(`${base}${expanded}`, { headers });
      if (e.status === 200)
        reads.push({
          name: `voice ${p.who} GET ${shape(path)}?expand=item`,
          url: `${base}${expanded}`,
          headers,
        });
    }
    const next = [
      ...hrefs(doc._links),
      ...embedded.slice(0, 1).flatMap((item) => hrefs((item as Hal)._links)),
    ];
    for (const h of next) {
      const filled = fill(h, vars);
      if (filled?.startsWith('/api/v1') && !filled.startsWith('/api/v1/rels')) queue.push(filled);
    }
  }
  return reads;
}

// ---- contact center: the specification's GETs ---------------------------------------------

const CC_TENANT = '5b0a0001-0000-4000-8000-000000001001';
const CC_AGENT = '5b0a0002-0000-4000-8000-000010010101';

async function token(username: string, password: string): Promise<string> {
  const r = await fetch(`${base}/6/v2/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

async function ccReads(): Promise<Read[]> {
  const admin = { authorization: `Bearer ${await token('admin', 'admin')}` };
  const tenantAdmin = { authorization: `Bearer ${await token('100@1001', '1234')}` };
  const api = `${base}/6/v2/api`;
  const t = `${api}/tenants/${CC_TENANT}`;
  // A finished call gives the single-call and search reads something to find.
  const reads: Read[] = [
    { name: 'cc telco GET products/', url: `${api}/products/`, headers: admin },
    { name: 'cc telco GET roles/', url: `${api}/roles/`, headers: admin },
    { name: 'cc telco GET tenants', url: `${api}/tenants`, headers: admin },
    { name: 'cc telco GET tenants/{uuid}', url: t, headers: admin },
    { name: 'cc telco GET tenants/{uuid}/roles', url: `${t}/roles`, headers: admin },
    { name: 'cc telco GET tenants/{uuid}/acds', url: `${t}/acds`, headers: admin },
    { name: 'cc telco GET tenants/{uuid}/presence_options', url: `${t}/presence_options`, headers: admin },
    { name: 'cc telco GET tenants/{uuid}/extensions', url: `${t}/extensions`, headers: admin },
    { name: 'cc telco GET tenants/{uuid}/text_count', url: `${t}/text_count`, headers: admin },
    {
      name: 'cc telco GET tenants/{uuid}/extensions/{uuid}/agent_state',
      url: `${t}/extensions/${CC_AGENT}/agent_state`,
      headers: admin,
    },
    { name: 'cc tenant GET acds', url: `${api}/acds`, headers: tenantAdmin },
    { name: 'cc tenant GET extensions', url: `${api}/extensions`, headers: tenantAdmin },
    {
      name: 'cc tenant GET tenants/{uuid}/extensions/{uuid}/agent_state',
      url: `${t}/extensions/${CC_AGENT}/agent_state`,
      headers: tenantAdmin,
    },
    { name: 'cc tenant GET calls', url: `${api}/calls`, headers: tenantAdmin },
  ];
  const calls = (await (await fetch(`${api}/calls`, { headers: tenantAdmin })).json()) as {
    items?: { call_id?: string; calling_number?: string }[];
  };
  const call = calls.items?.[0];
  if (call?.call_id) {
    reads.push({
      name: 'cc tenant GET calls/{id}',
      url: `${api}/calls/${call.call_id}`,
      headers: tenantAdmin,
    });
    reads.push({
      name: 'cc tenant GET calls/filter',
      url: `${api}/calls/filter?calling_number=${encodeURIComponent(call.calling_number ?? '101')}`,
      headers: tenantAdmin,
    });
  }
  return reads;
}

/** One ended call between agents, so the call list, the single call and the search answer 200. */
async function makeHistory(): Promise<void> {
  const bob = basicHeader('101@1001:1234');
  const post = (path: string, body: unknown, auth: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify(body),
    });
  const r = await post('/api/v1/calls', { from: '101@1001', to: '102' }, bob);
  const callId = ((await r.json()) as { callObserverId?: string }).callObserverId;
  await new Promise((ok) => setTimeout(ok, 300));
  await post('/sim/v1/devices/ph1001-102/answer', {}, basicHeader('admin:admin'));
  await new Promise((ok) => setTimeout(ok, 100));
  if (callId) await post(`/api/v1/calls/${callId}/hangupCall`, {}, bob);
  await new Promise((ok) => setTimeout(ok, 300));
}

await makeHistory();
let reads: Read[] = [];
for (const p of principals) reads.push(...(await voiceReads(p)));
reads.push(...(await ccReads()));
if (ONLY) reads = reads.filter((r) => r.name.includes(ONLY));
for (const r of reads) {
  const res = await fetch(r.url, { headers: r.headers });
  if (res.status !== 200) throw new Error(`${r.name} answers ${res.status}`);
}
console.log(`${reads.length} reads`);

// ---- load ---------------------------------------------------------------------------------

const ref = {
  url: `http://127.0.0.1:${reference.port}/cached`,
  headers: { authorization: basicHeader('101@1001:1234') },
};
const run = (url: string, headers: Record<string, string>, server: typeof sb) =>
  load({ url, headers, connections: CONNECTIONS, durationS: DURATION_S, server });
await run(ref.url, ref.headers, reference);
await run(reads[0].url, reads[0].headers, sb);

interface Row {
  read: Read;
  result: LoadResult;
  refRps: number;
  ratio: number;
}
const rows: Row[] = [];
let failed = 0;
let before = await run(ref.url, ref.headers, reference);
for (const read of reads) {
  const result = await run(read.url, read.headers, sb);
  const after = await run(ref.url, ref.headers, reference);
  const refRps = (before.rps + after.rps) / 2;
  failed += result.errors + result.non2xx;
  rows.push({ read, result, refRps, ratio: result.rps / refRps });
  console.log(
    `${read.name.padEnd(80)} ${fmt(result.rps).padStart(7)} req/s = ${(result.rps / refRps).toFixed(2)} ` +
      `(reference ${fmt(refRps)}), p99 ${result.p99} ms, server CPU ${result.cpuPerRequest?.toFixed(1)} µs/req`,
  );
  before = after;
}

const slowest = [...rows].sort((a, b) => a.ratio - b.ratio);
console.log('\nslowest ten:');
printTable(
  ['read', 'req/s', 'ratio', 'p99 ms', 'server µs/req'],
  slowest
    .slice(0, 10)
    .map((r) => [
      r.read.name,
      fmt(r.result.rps),
      r.ratio.toFixed(2),
      String(r.result.p99),
      r.result.cpuPerRequest?.toFixed(1) ?? '',
    ]),
);
for (const r of rows)
  report.figure(r.read.name, {
    url: r.read.url.slice(base.length),
    ...r.result,
    referenceRps: r.refRps,
    ratio: r.ratio,
  });
const below = slowest.filter((r) => r.ratio < RATIO);
report.check({
  what: `${rows.length} reads of both APIs, each between two reference loads`,
  measured:
    `slowest ${slowest[0]?.ratio.toFixed(2)} (${slowest[0]?.read.name}), ` +
    `median ${slowest[Math.floor(slowest.length / 2)]?.ratio.toFixed(2)}; ${below.length} below ${RATIO}`,
  budget: `every read >= ${RATIO} of the reference req/s`,
  pass: below.length === 0,
});
report.check({
  what: 'requests that failed or were not 2xx',
  measured: String(failed),
  budget: '0',
  pass: failed === 0,
});
for (const ws of sockets) ws.close();
await Promise.all([reference.stop(), sb.stop()]);
report.finish();
