import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { Parser } from '@asyncapi/parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../../helpers/cli.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const run = promisify(execFile);
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const OPENAPI = ['voice', 'contact-center', 'simulator'];
const ASYNCAPI = ['voice-events', 'contact-center-events', 'voice-webhooks'];

describe('published API documents', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(join(tmpdir(), 'switchboard-docs-'));
  });
  after(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const getDoc = async (name: string) => {
    const res = await s.fetch(`/openapi/${name}.json`);
    assert.equal(res.status, 200, name);
    return (await res.json()) as Record<string, any>;
  };

  it('lists every document under /openapi', async () => {
    const res = await s.fetch('/openapi');
    assert.equal(res.status, 200);
    const { documents } = (await res.json()) as { documents: { name: string; kind: string; href: string }[] };
    assert.deepEqual(documents.map((d) => d.name).sort(), [...OPENAPI, ...ASYNCAPI].sort());
    for (const d of documents) assert.equal(d.href, `/openapi/${d.name}.json`);
    assert.equal((await s.fetch('/openapi/nothing.json')).status, 404);
    assert.equal((await s.fetch('/openapi/..%2Fpackage.json')).status, 404);
  });

  for (const name of OPENAPI) {
    it(`${name}: OpenAPI 3.1 that @redocly/cli lints with zero errors`, async () => {
      const doc = await getDoc(name);
      assert.equal(doc.openapi, '3.1.0');
      assert.ok(Object.keys(doc.paths).length > 0);
      const file = join(dir, `${name}.json`);
      writeFileSync(file, JSON.stringify(doc));
      const cli = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const result = await run(
        process.execPath,
        [cli, 'lint', file, '--format=json', '--max-problems=1000'],
        {
          env: {
            ...process.env,
            REDOCLY_TELEMETRY: 'off',
            REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
            CI: 'true',
          },
          maxBuffer: 64 * 1024 * 1024,
        },
      ).catch((e: { stdout: string; stderr: string; code: number }) => e);
      const report = JSON.parse(result.stdout.slice(result.stdout.indexOf('{'))) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const errors = report.problems
        .filter((p) => p.severity === 'error')
        .map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
      assert.deepEqual(errors, [], `redocly errors in ${name}`);
      assert.equal(report.totals.errors, 0);
    });
  }

  for (const name of ASYNCAPI) {
    it(`${name}: AsyncAPI 3 that @asyncapi/parser accepts without errors`, async () => {
      const doc = await getDoc(name);
      assert.equal(doc.asyncapi, '3.0.0');
      const { document, diagnostics } = await new Parser().parse(JSON.stringify(doc));
      const errors = diagnostics
        .filter((d) => d.severity === 0)
        .map((d) => `${d.path.join('/')}: ${d.message}`);
      assert.deepEqual(errors, []);
      assert.ok(document);
      assert.ok(document.allMessages().length > 0);
    });
  }

  for (const name of ASYNCAPI) {
    it(`${name}: every message example is valid against its payload and headers`, async () => {
      const doc = await getDoc(name);
      const ajv = new Ajv2020({ strict: false, validateFormats: true });
      addFormats(ajv);
      ajv.addSchema(doc, name);
      let seen = 0;
      for (const [m, message] of Object.entries(doc.components.messages as Record<string, any>)) {
        for (const x of (message.examples ?? []) as { name: string; payload: unknown; headers?: unknown }[]) {
          const payload = ajv.compile({ $ref: `${name}#/components/messages/${m}/payload` });
          assert.ok(payload(x.payload), `${m} "${x.name}": ${ajv.errorsText(payload.errors)}`);
          if (message.headers) {
            const headers = ajv.compile({ $ref: `${name}#/components/messages/${m}/headers` });
            assert.ok(headers(x.headers), `${m} "${x.name}" headers: ${ajv.errorsText(headers.errors)}`);
          }
          seen++;
        }
      }
      assert.ok(seen > 0, 'some examples');
    });
  }

  it('documents every route the APIs serve', async () => {
    const documented = new Set<string>();
    for (const name of OPENAPI) {
      const doc = await getDoc(name);
      for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
        for (const method of Object.keys(item)) documented.add(`${method.toUpperCase()} ${path}`);
      }
    }
    const missing = s.runtime.docs
      .servedRoutes()
      .map((r) => `${r.method} ${r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`)
      .filter((r) => !documented.has(r));
    assert.deepEqual(missing, []);
  });
});
