// Records real answers of a demo-world server as the examples of the voice and simulator OpenAPI
// documents (src/api/*/openapi-examples.json), so that a mock server or Swagger UI shows what
// Switchboard really says. Run after a change to what these GETs answer:
//   npx tsx scripts/record-examples.ts
// test/api/docs/examples.test.ts checks every example against its schema.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { format, resolveConfig } from 'prettier';
import { DEFAULTS } from '../src/server/config.js';
import { startServer } from '../src/server/serve.js';

type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
};

/** Demo values of path parameters that no parent list names. */
const KNOWN: Record<string, string> = { tenantId: '1001', extension: '101' };
/** Items kept of each embedded list: enough to show the shape, small enough to read. */
const LIST_ITEMS = 2;

const dir = mkdtempSync(join(tmpdir(), 'switchboard-examples-'));
const server = await startServer(
  { ...DEFAULTS, port: 0, db: join(dir, 'examples.db'), clock: 'virtual', logLevel: 'silent' },
  pino({ level: 'silent' }),
);
const auth = `Basic ${Buffer.from('admin:admin').toString('base64')}`;
const get = async (path: string) => {
  const r = await fetch(server.httpUrl + path, { headers: { authorization: auth } });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as unknown) : undefined };
};

/** The value of `param` in the first item of the list one level up, if there is one. */
async function fromParent(path: string, param: string): Promise<string | undefined> {
  const parent = path.slice(0, path.indexOf(`/{${param}}`));
  const list = await get(parent);
  const embedded = (list.json as { _embedded?: Record<string, unknown[]> } | undefined)?._embedded;
  const first = embedded && (Object.values(embedded)[0]?.[0] as Record<string, unknown> | undefined);
  const value = first?.[param] ?? first?.id;
  return value === undefined ? undefined : String(value);
}

async function concrete(path: string): Promise<string | undefined> {
  let out = path;
  for (const [, param] of path.matchAll(/\{(\w+)\}/g)) {
    const value = KNOWN[param] ?? (await fromParent(out, param));
    if (value === undefined) return undefined;
    out = out.replace(`{${param}}`, encodeURIComponent(value));
  }
  return out;
}

function trimmed(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const o = { ...(body as Record<string, unknown>) };
  if (o._embedded && typeof o._embedded === 'object') {
    o._embedded = Object.fromEntries(
      Object.entries(o._embedded as Record<string, unknown>).map(([k, v]) => [
        k,
        Array.isArray(v) ? v.slice(0, LIST_ITEMS) : v,
      ]),
    );
  }
  return o;
}

try {
  for (const [name, file] of [
    ['voice', 'src/api/voice/openapi-examples.json'],
    ['simulator', 'src/api/sim/openapi-examples.json'],
  ] as const) {
    const doc = (await (await fetch(`${server.httpUrl}/openapi/${name}.json`)).json()) as Doc;
    const examples: Record<string, Record<string, unknown>> = {};
    for (const [path, item] of Object.entries(doc.paths)) {
      const op = item.get;
      if (!op?.responses['200'] || path.endsWith('/ws')) continue;
      const url = await concrete(path);
      if (!url) continue;
      const answer = await get(url);
      if (answer.status === 200 && answer.json !== undefined)
        examples[op.operationId] = { '200': trimmed(answer.json) };
    }
    const options = { ...(await resolveConfig(file)), filepath: file };
    writeFileSync(file, await format(JSON.stringify(examples), options));
    console.log(`${file}: ${Object.keys(examples).length} examples`);
  }
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
