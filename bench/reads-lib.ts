// The reads of `bench:reads`, shared with `bench:scale`: every GET of both APIs, found by walking
// the voice HAL graph from the v1 root as a user, a tenant admin and the operator (each route shape
// once, list items, and lists again with `expand=item`), plus the contact-center specification's
// GET endpoints as the telco admin and a tenant admin; and the interleaved load that measures each
// read between two loads of the cached-auth reference, so a drift of the machine moves both sides
// of its ratio.
import WebSocket from 'ws';
import { alone, basicHeader, type Child, fmt, load, type LoadResult } from './lib.js';

export interface Read {
  name: string;
  url: string;
  headers: Record<string, string>;
}

/** The flags that let one client load the server as hard as it can. */
export const UNLIMITED = ['--limit-per-client', '1000', '--limit-inflight', '1000'];

const principals = [
  { who: 'user 101', auth: basicHeader('101@1001:1234') },
  { who: 'tenant admin 100', auth: basicHeader('100@1001:1234') },
  { who: 'operator', auth: basicHeader('admin:admin') },
];

// ---- voice: the HAL graph ---------------------------------------------------------------

/** A live socket's id fills `{webSocketId}`; the socket stays open until `close`. */
async function webSocketId(base: string, auth: string): Promise<{ id: string; ws: WebSocket }> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/ws`, { headers: { authorization: auth } });
  const id = await new Promise<string>((ok, fail) => {
    ws.once('message', (d) => ok((JSON.parse(String(d)) as { webSocketId: string }).webSocketId));
    ws.once('error', fail);
  });
  return { id, ws };
}

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

async function voiceReads(
  base: string,
  p: (typeof principals)[number],
  maxRoutes: number,
  sockets: WebSocket[],
): Promise<Read[]> {
  const { id, ws } = await webSocketId(base, p.auth);
  sockets.push(ws);
  const vars: Record<string, string> = { webSocketId: id, accountId: 'PL1@1001', extension: '101', rel: 'x' };
  const headers = { authorization: p.auth };
  const langs = (await (await fetch(`${base}/api/v1/languages`, { headers })).json()) as Hal;
  const firstLang = Object.values(langs._embedded ?? {}).flat()[0] as { langCode?: string } | undefined;
  if (firstLang?.langCode) vars.langCode = firstLang.langCode;
  const seen = new Set<string>();
  const reads: Read[] = [];
  const queue = ['/api/v1'];
  while (queue.length && reads.length < maxRoutes) {
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

async function token(base: string, username: string, password: string): Promise<string> {
  const r = await fetch(`${base}/6/v2/api/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'password', username, password }),
  });
  return ((await r.json()) as { access_token: string }).access_token;
}

/** How often the contact-center tokens are issued again: they live an hour, a scale run longer. */
const TOKEN_RENEW_MS = 20 * 60_000;

async function ccReads(base: string, closers: (() => void)[]): Promise<Read[]> {
  // The reads share these header objects: renewed in place, every later window sends the new token.
  const admin = { authorization: '' };
  const tenantAdmin = { authorization: '' };
  const issue = async () => {
    admin.authorization = `Bearer ${await token(base, 'admin', 'admin')}`;
    tenantAdmin.authorization = `Bearer ${await token(base, '100@1001', '1234')}`;
  };
  await issue();
  const renew = setInterval(() => {
    issue().catch((err: unknown) => console.error(`renewing the contact-center tokens: ${String(err)}`));
  }, TOKEN_RENEW_MS);
  renew.unref();
  closers.push(() => clearInterval(renew));
  const api = `${base}/6/v2/api`;
  const t = `${api}/tenants/${CC_TENANT}`;
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
  // The newest finished call gives the single-call and search reads something to find; with a
  // history, so does the oldest one the list shows (a number whose newest call is further back).
  const calls = (await (await fetch(`${api}/calls`, { headers: tenantAdmin })).json()) as {
    items?: { id: string; type?: string; calling: { number: string } }[];
  };
  const finished = calls.items?.filter((c) => c.type !== 'in_ecr') ?? [];
  const search = (number: string) => `${api}/calls/filter?calling_number=${encodeURIComponent(number)}`;
  if (finished.length) {
    const [newest, oldest] = [finished[0], finished[finished.length - 1]];
    reads.push({ name: 'cc tenant GET calls/{id}', url: `${api}/calls/${newest.id}`, headers: tenantAdmin });
    reads.push({
      name: 'cc tenant GET calls/filter',
      url: search(newest.calling.number),
      headers: tenantAdmin,
    });
    if (finished.length > 1)
      reads.push({
        name: 'cc tenant GET calls/filter (the oldest listed call)',
        url: search(oldest.calling.number),
        headers: tenantAdmin,
      });
  }
  return reads;
}

/** One ended call between agents, so the call list, the single call and the search answer 200. */
async function makeHistory(base: string): Promise<void> {
  const bob = basicHeader('101@1001:1234');
  const post = (path: string, body: unknown, auth: string) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: auth },
      body: JSON.stringify(body),
    });
  const r = await post('/api/v1/calls', { from: '101@1001', to: '102' }, bob);
  const { callId } = (await r.json()) as { callId: string };
  await new Promise((ok) => setTimeout(ok, 300));
  await post('/sim/v1/devices/ph1001-102/answer', {}, basicHeader('admin:admin'));
  await new Promise((ok) => setTimeout(ok, 100));
  const hangup = await post(`/api/v1/calls/${callId}`, { callRequest: 'hangupCall' }, bob);
  if (hangup.status !== 200) throw new Error(`hanging up the history call answered ${hangup.status}`);
  await new Promise((ok) => setTimeout(ok, 300));
}

/**
 * Every read of a running server (after one call, so the call reads have something to read),
 * each checked to answer 200; `only` keeps the reads whose name contains it. `close` ends the
 * sockets whose ids some reads name.
 */
export async function discoverReads(
  base: string,
  o: { maxVoiceRoutes: number; only?: string },
): Promise<{ reads: Read[]; close(): void }> {
  await makeHistory(base);
  const sockets: WebSocket[] = [];
  let reads: Read[] = [];
  for (const p of principals) reads.push(...(await voiceReads(base, p, o.maxVoiceRoutes, sockets)));
  const closers = [() => sockets.forEach((ws) => ws.close())];
  reads.push(...(await ccReads(base, closers)));
  if (o.only) reads = reads.filter((r) => r.name.includes(o.only!));
  for (const r of reads) {
    const res = await fetch(r.url, { headers: r.headers });
    if (res.status !== 200) throw new Error(`${r.name} answers ${res.status}`);
  }
  return { reads, close: () => closers.forEach((close) => close()) };
}

// ---- load ---------------------------------------------------------------------------------

/** A read to load on a server; several of one row are loaded back to back (bench:scale: N = 1, 16). */
export interface Target {
  read: Read;
  server: Child;
  /** Printed before the read's name. */
  label?: string;
}

export interface InterleavedRow {
  results: { target: Target; result: LoadResult; ratio: number }[];
  /** The reference's req/s, the mean of its loads just before and just after the row's. */
  refRps: number;
}

/** The reference's route: a minimal Fastify route with cached Basic auth and a 1 KB body. */
export const referenceRead = (reference: Child) => ({
  url: `http://127.0.0.1:${reference.port}/cached`,
  headers: { authorization: basicHeader('101@1001:1234') },
});

/**
 * Each row's reads at saturation (`connections` closed-loop clients), loaded between two loads of
 * the reference; the reference and each server warmed once first. Each read is also warmed
 * (`warmupS`, unmeasured) right before its load: the reference, loaded every other time, runs
 * compiled code, and a read's route would otherwise be compiled inside its own measured window
 * (its first request's handler, renderer and serializer; seen as the first read of a run
 * measuring 0.41 and the same read 0.69 when second). Prints a line per read.
 */
export async function loadInterleaved(
  rows: Target[][],
  reference: Child,
  o: { connections: number; durationS: number; warmupS?: number; among?: Child[] },
): Promise<InterleavedRow[]> {
  const ref = referenceRead(reference);
  const run = (url: string, headers: Record<string, string>, target: Child, durationS = o.durationS) => {
    const measure = () => load({ url, headers, connections: o.connections, durationS, server: target });
    return o.among ? alone(target, o.among, measure) : measure();
  };
  const warmupS = o.warmupS ?? Number(process.env.BENCH_WARMUP_S ?? 1);
  await run(ref.url, ref.headers, reference);
  for (const t of rows[0] ?? []) await run(t.read.url, t.read.headers, t.server);
  const out: InterleavedRow[] = [];
  let before = await run(ref.url, ref.headers, reference);
  for (const row of rows) {
    const measured: LoadResult[] = [];
    if (warmupS > 0) for (const t of row) await run(t.read.url, t.read.headers, t.server, warmupS);
    for (const t of row) measured.push(await run(t.read.url, t.read.headers, t.server));
    const after = await run(ref.url, ref.headers, reference);
    const refRps = (before.rps + after.rps) / 2;
    const results = row.map((target, i) => ({
      target,
      result: measured[i],
      ratio: measured[i].rps / refRps,
    }));
    for (const { target, result, ratio } of results)
      console.log(
        `${target.label ?? ''}${target.read.name.padEnd(80)} ${fmt(result.rps).padStart(7)} req/s = ` +
          `${ratio.toFixed(2)} (reference ${fmt(refRps)}), p99 ${result.p99} ms, ` +
          `server CPU ${result.cpuPerRequest?.toFixed(1)} µs/req`,
      );
    out.push({ results, refRps });
    before = after;
  }
  return out;
}

// ---- judging on more than one window ------------------------------------------------------

/** Extra windows for a suspect read (`BENCH_CONFIRM_PASSES`; 0 judges every read on its first window). */
export const CONFIRM_PASSES = Number(process.env.BENCH_CONFIRM_PASSES ?? 2);

/**
 * A read is judged on more than one window (docs/benchmarks.md, "Judging a read"). One window of a
 * read is a second or two on a shared machine, where the reference itself moves by ±15 % between
 * neighbouring loads and one pause decides a p99 of 200 requests. So every read is measured once,
 * and each read whose first window is `suspect` (below the benchmark's aim, not only its budget) is
 * measured `CONFIRM_PASSES` more times, in passes over all the suspects in turn, so that a read's
 * windows lie minutes apart; it is then judged on the median of its windows. A read not suspect
 * is judged on its one window: the aim it met lies above the budget by more than that spread.
 */
export async function confirmSuspects<R>(
  rows: R[],
  suspect: (row: R) => boolean,
  measure: (suspects: R[]) => Promise<void>,
  what: string,
  passes = CONFIRM_PASSES,
): Promise<R[]> {
  const suspects = rows.filter(suspect);
  for (let pass = 1; pass <= passes && suspects.length > 0; pass++) {
    console.log(`\n${what}: window ${pass + 1} of ${suspects.length} suspect reads`);
    await measure(suspects);
  }
  return suspects;
}
