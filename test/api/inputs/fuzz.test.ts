/**
 * The front-door fuzz run (issue 14): a seeded, bounded property-based run with fast-check over
 * every operation the three published OpenAPI documents list (paths, query strings, bodies,
 * headers) and over frames on both event sockets. Properties: no answer is a 5xx, the server
 * stays up, and every answer and frame matches the published documents (the test server's
 * contract checker fails the suite at stop otherwise: the documented error body shapes).
 *
 * Replay: `FUZZ_SEED=<seed> node scripts/test.mjs test/api/inputs/fuzz.test.ts` (the seed is
 * printed). Bounded by count and time: FUZZ_RUNS (default 1500 requests) and FUZZ_MS (25 s).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import WebSocket from 'ws';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';
import { CcClient } from '../ccs/cc-client.js';
import { ADMIN, ALICE, BOB, HANK } from '../voice/voice-helpers.js';

const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const BUDGET_MS = Number(process.env.FUZZ_MS ?? 25_000);
const SOCKET_RUNS = Number(process.env.FUZZ_SOCKET_RUNS ?? 60);
const SOCKET_BUDGET_MS = Number(process.env.FUZZ_SOCKET_MS ?? 8_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OpenAPI document is read loosely
type Schema = Record<string, any>;
interface Operation {
  method: string;
  /** `/api/v1/tenants/{tenantId}/users` */
  path: string;
  query: string[];
  body?: Schema;
}

/** Names that reach Object.prototype if a lookup is not an own-property one. */
const INHERITED = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
/** Ids that exist in the demo world, so that requests get past the 404s. */
const KNOWN = [
  '1001',
  '1002',
  '100',
  '101',
  '150',
  '200',
  'ph1001-100',
  'site-1001-hq',
  '+15555550100',
  'en',
];

function operationsOf(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const query = (op.parameters ?? [])
        .map((p: Schema) => resolve(doc, p))
        .filter((p: Schema) => p.in === 'query')
        .map((p: Schema) => p.name as string);
      const content = op.requestBody && resolve(doc, op.requestBody).content;
      const body = content?.['application/json']?.schema;
      out.push({ method: method.toUpperCase(), path, query, body: body && resolve(doc, body) });
    }
  }
  return out;
}

function resolve(doc: Schema, s: Schema): Schema {
  let at = s;
  for (let i = 0; at?.$ref && i < 20; i++) {
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce((o: Schema, k: string) => o?.[k.replace(/~1/g, '/')], doc);
  }
  return at ?? {};
}

/** Percent-encoding that survives lone surrogates (as U+FFFD; raw ill-formed bytes are in `segment`). */
const enc = (v: string) => encodeURIComponent(v.replace(/[\ud800-\udfff]/gu, '\ufffd'));

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.constantFrom(...KNOWN, ...INHERITED, '', ' ', '\u0000', '\ud800', '%', '..', 'a'.repeat(5000)),
);

/** A value of roughly the schema's shape; sometimes anything at all. */
function valueOf(doc: Schema, raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(doc, raw);
  const any = fc.jsonValue({ maxDepth: 2 });
  if (depth > 3) return any;
  const members = s.anyOf ?? s.oneOf;
  if (members) return fc.oneof(...members.map((m: Schema) => valueOf(doc, m, depth + 1)), any);
  if ('const' in s) return fc.oneof(fc.constant(s.const), any);
  if (s.enum) return fc.oneof(fc.constantFrom(...s.enum), text);
  switch (s.type) {
    case 'object': {
      const props = Object.entries<Schema>(s.properties ?? {});
      const record = Object.fromEntries(props.map(([k, v]) => [k, valueOf(doc, v, depth + 1)]));
      return fc.oneof(
        {
          weight: 4,
          arbitrary: fc.record(record, {
            requiredKeys: (s.required ?? []).filter((k: string) => k in record),
          }),
        },
        fc.dictionary(fc.constantFrom(...INHERITED, ...props.map(([k]) => k), 'x'), any, { maxKeys: 3 }),
        any,
      );
    }
    case 'array':
      return fc.oneof(fc.array(valueOf(doc, s.items ?? {}, depth + 1), { maxLength: 4 }), any);
    case 'string':
      return fc.oneof(text, fc.constantFrom(...KNOWN), any);
    case 'integer':
    case 'number':
      return fc.oneof(fc.integer(), fc.constantFrom(0, -1, 2 ** 53, 1.5, 1e308), any);
    case 'boolean':
      return fc.oneof(fc.boolean(), any);
    default:
      return any;
  }
}

/** A body as bytes: shaped JSON, any JSON, broken JSON, prototype keys, deep nesting, nothing. */
function bodyOf(doc: Schema, op: Operation): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 5, arbitrary: valueOf(doc, op.body ?? { type: 'object' }).map((v) => JSON.stringify(v)) },
    fc.constant(undefined),
    fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '"x"',
      '{"__proto__":{"isAdmin":true}}',
      '{"constructor":{"prototype":{"x":1}}}',
      `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
      `{"a":"${'x'.repeat(200_000)}"}`,
    ),
    fc.string({ unit: 'binary', maxLength: 64 }),
  );
}

const segment = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...KNOWN) },
  fc.constantFrom(
    ...INHERITED,
    '0',
    '-1',
    '99999999999999999999',
    '..',
    '%2e%2e',
    '%00',
    '%ZZ',
    '%F0%9F',
    '%ED%A0%80',
    '%C0%AF',
  ),
  fc.string({ maxLength: 16 }).map(enc),
  fc.string({ unit: 'binary', maxLength: 16 }).map(enc),
);

const filterValue = fc
  .tuple(
    fc.constantFrom('eq', 'ne', 'gt', 'ct', 'est', 'zz', ''),
    fc.oneof(
      fc.constantFrom('extension', 'name', 'tenantId', 'phones.model', ...INHERITED),
      fc.constantFrom(...INHERITED).map((k) => `${k}.${k === 'constructor' ? 'prototype' : 'constructor'}`),
    ),
    fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
  )
  .map(([op, key, v]) => enc(`${op}(${key}${v === undefined ? '' : `,${v}`})`));

/** Known values per path parameter, so that most requests get past the 404s and reach handlers. */
const KNOWN_BY_PARAM: Record<string, string[]> = {
  tenantId: ['1001', '1002'],
  tenant: ['1001', '1002'],
  extension: ['100', '101', '150'],
  ext: ['100', '101'],
  deviceId: ['ph1001-100', 'ph1001-101'],
};

/** A documented path with each `{param}` filled: mostly a known value, sometimes anything. */
function pathOf(template: string): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const values = names.map((n) =>
    fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...(KNOWN_BY_PARAM[n] ?? KNOWN)) }, segment),
  );
  return fc.tuple(...values).map((vs) => template.replace(/\{[^}]+\}/g, () => vs.shift() ?? '1'));
}

function queryOf(op: Operation): fc.Arbitrary<string> {
  // `filter` and `expand` are the richest grammars: they come up most.
  const name = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('filter', 'expand') },
    fc.constantFrom(...op.query, 'page', ...INHERITED),
  );
  const pair = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.tuple(name, fc.oneof(text.map(enc), filterValue)).map(([k, v]) => `${k}=${v}`),
    },
    fc.string({ maxLength: 12 }),
  );
  return fc.array(pair, { maxLength: 4 }).map((pairs) => (pairs.length ? `?${pairs.join('&')}` : ''));
}

describe('front-door fuzz run', () => {
  // Wrong passwords are part of the run: no lock-out. Scripts open one socket after another, so a
  // socket whose close the server has not yet seen must not make the next upgrade a 429.
  const server = suiteServer({ lockoutFailures: 1_000_000, wsPerClient: 100 });

  test(`every route of the three APIs: no 5xx, answers as documented (seed ${SEED})`, async (t) => {
    t.diagnostic(`FUZZ_SEED=${SEED}`);
    const s = server();
    const cc = await CcClient.login(s, '100@1001');
    const bearers = [`Bearer ${cc.token}`, `Bearer ${(await CcClient.login(s, 'admin')).token}`];
    // The telco administrator reaches every tenant and the simulator: it comes up most.
    const basics = [basic(ADMIN), basic(ADMIN), basic(ADMIN), basic(ALICE), basic(BOB), basic(HANK)];
    const docs = await Promise.all(
      ['voice', 'contact-center', 'simulator'].map(
        async (n) => (await s.fetch(`/openapi/${n}.json`)).json() as Promise<Schema>,
      ),
    );
    const requests = docs.flatMap((doc) =>
      operationsOf(doc).map((op) =>
        fc.record({
          op: fc.constant(op),
          path: pathOf(op.path),
          query: queryOf(op),
          body: bodyOf(doc, op),
          // Mostly the API's own kind of credentials (Bearer on the contact center), so that
          // requests get past authentication; sometimes the other kind, a wrong one or none.
          auth: fc.oneof(
            {
              weight: 6,
              arbitrary: fc.constantFrom(...(doc.info?.title?.match(/contact/i) ? bearers : basics)),
            },
            fc.constantFrom(...(doc.info?.title?.match(/contact/i) ? basics : bearers)),
            fc.constantFrom('Bearer nope', basic('100@1001:wrong'), 'Basic %%%', undefined),
          ),
          type: fc.oneof(
            { weight: 6, arbitrary: fc.constant('application/json') },
            fc.constantFrom(
              'application/json; charset=utf-8',
              'text/plain',
              'application/x-www-form-urlencoded',
              'x/\u00ff',
              undefined,
            ),
          ),
          method: fc.oneof(
            { weight: 9, arbitrary: fc.constant(op.method) },
            fc.constantFrom('PATCH', 'OPTIONS', 'HEAD'),
          ),
        }),
      ),
    );
    assert.ok(requests.length > 100, `only ${requests.length} operations documented`);
    let sent = 0;
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(fc.oneof(...requests), async (r) => {
        const headers: Record<string, string> = {};
        if (r.auth) headers.authorization = r.auth;
        if (r.type) headers['content-type'] = r.type;
        const hasBody = r.body !== undefined && !['GET', 'HEAD', 'OPTIONS'].includes(r.method);
        const res = await s.fetch(r.path + r.query, {
          method: r.method,
          headers,
          ...(hasBody ? { body: r.body } : {}),
        });
        await res.arrayBuffer();
        sent++;
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        assert.ok(res.status < 500, `${r.method} ${r.path}${r.query} → ${res.status}`);
      }),
      {
        seed: SEED,
        numRuns: RUNS,
        interruptAfterTimeLimit: BUDGET_MS,
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    );
    t.diagnostic(`${sent} requests; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    assert.ok(sent >= Math.min(RUNS, 200), `only ${sent} requests in the time budget`);
    // Not everything was refused: the generator reaches the handlers.
    assert.ok((statuses.get(200) ?? 0) + (statuses.get(201) ?? 0) + (statuses.get(204) ?? 0) > 0);
    const health = await s.fetch('/healthz');
    assert.equal(health.status, 200);
  });
});

describe('front-door fuzz run of the event sockets', () => {
  // A server of its own: the route run above may change or remove the user whose token this needs.
  const server = suiteServer({ lockoutFailures: 1_000_000, wsPerClient: 100 });

  test(`frames on both event sockets: no crash, documented answers (seed ${SEED})`, async (t) => {
    t.diagnostic(`FUZZ_SEED=${SEED}`);
    const s = server();
    const cc = await CcClient.login(s, '101@1001');
    const frame = fc.oneof(
      { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
      fc
        .record(
          {
            request: fc.constantFrom('connect', 'subscribe', 'ping', ...INHERITED, 'x'),
            token: fc.oneof(fc.constant(cc.token), text),
            events: fc.oneof(
              fc.array(fc.oneof(text, fc.constantFrom('agent_state', 'call', '*')), { maxLength: 4 }),
              fc.jsonValue(),
            ),
          },
          { requiredKeys: ['request'] },
        )
        .map((v) => JSON.stringify(v)),
      fc.constantFrom(
        '',
        '{',
        `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
        '{"__proto__":{"request":"subscribe"}}',
      ),
      fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
    );
    const script = fc.record({
      socket: fc.constantFrom('voice', 'contact-center'),
      connectFirst: fc.boolean(),
      frames: fc.array(frame, { minLength: 1, maxLength: 6 }),
    });
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(script, async ({ socket, connectFirst, frames }) => {
        runs++;
        const closed = await drive(s, socket, connectFirst ? cc.token : undefined, frames);
        assert.ok([1000, 1005, 1008, 1009, 1013].includes(closed), `${socket} socket closed with ${closed}`);
      }),
      {
        seed: SEED,
        numRuns: SOCKET_RUNS,
        interruptAfterTimeLimit: SOCKET_BUDGET_MS,
        markInterruptAsFailure: false,
        endOnFailure: true,
      },
    );
    t.diagnostic(`${runs} socket scripts`);
    assert.ok(runs > 0);
    assert.equal((await s.fetch('/healthz')).status, 200);
  });
});

/**
 * Opens a socket, sends the frames, then closes it; every text frame the server sends must be
 * JSON. Resolves with the close code (1000 when we closed it, 1005 without a code).
 */
function drive(
  s: TestServer,
  which: string,
  token: string | undefined,
  frames: (string | Buffer)[],
): Promise<number> {
  const voice = which === 'voice';
  const ws = new WebSocket(`${s.wsUrl}${voice ? '/api/ws' : '/6/v2/sock'}`, {
    headers: voice ? { authorization: basic(BOB) } : {},
  });
  return new Promise((resolve, reject) => {
    ws.on('error', reject);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      try {
        JSON.parse(String(data));
      } catch {
        // The voice socket echoes what it was sent; the contact-center one answers in JSON.
        if (!voice) reject(new Error(`non-JSON frame: ${String(data).slice(0, 80)}`));
      }
    });
    ws.on('close', (code) => resolve(code));
    ws.on('open', async () => {
      if (token) ws.send(JSON.stringify({ request: 'connect', token }));
      for (const f of frames) {
        if (ws.readyState !== WebSocket.OPEN) break;
        ws.send(f, { binary: Buffer.isBuffer(f) });
      }
      // A round trip through the server before closing: the frames above were all handled.
      setTimeout(() => ws.readyState === WebSocket.OPEN && ws.close(1000), 30);
    });
  });
}
