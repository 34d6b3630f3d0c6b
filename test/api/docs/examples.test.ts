import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ContractChecker } from '../../helpers/contract.js';
import { suiteServer, type TestServer } from '../../helpers/server.js';

type Content = Record<string, { example?: unknown }>;
type Doc = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Content }> }>>;
  servers?: unknown;
};

async function doc(s: TestServer, name: string): Promise<Doc> {
  const r = await s.fetch(`/openapi/${name}.json`);
  assert.equal(r.status, 200);
  return (await r.json()) as Doc;
}

/** Every example of a document: where it is and what it shows. */
function examplesOf(d: Doc) {
  const out: { path: string; method: string; status: string; contentType: string; example: unknown }[] = [];
  for (const [path, item] of Object.entries(d.paths))
    for (const [method, op] of Object.entries(item))
      for (const [status, r] of Object.entries(op.responses))
        for (const [contentType, c] of Object.entries(r.content ?? {}))
          if (c.example !== undefined) out.push({ path, method, status, contentType, example: c.example });
  return out;
}

describe('documents users can lean on', () => {
  const current = suiteServer();

  for (const [name, atLeast] of [
    ['voice', 60],
    ['simulator', 4],
  ] as const) {
    test(`${name}: real answers as examples, each valid against its own response schema`, async () => {
      const s = current();
      const examples = examplesOf(await doc(s, name));
      assert.ok(examples.length >= atLeast, `${examples.length} examples`);
      const checker = new ContractChecker();
      checker.bind(s.runtime);
      for (const e of examples) {
        checker.response({
          method: e.method.toUpperCase(),
          route: e.path.replace(/\{(\w+)\}/g, ':$1'),
          url: e.path,
          status: Number(e.status),
          contentType: e.contentType,
          headers: { 'content-type': e.contentType },
          body: JSON.stringify(e.example),
        });
      }
      assert.deepEqual(checker.violations, []);
    });
  }

  test('no document cites a design file that is not in the repository', async () => {
    const s = current();
    for (const name of [
      'voice',
      'contact-center',
      'simulator',
      'voice-events',
      'contact-center-events',
      'voice-webhooks',
    ]) {
      assert.doesNotMatch(JSON.stringify(await doc(s, name)), /DESIGN/, name);
    }
  });

  test('the AsyncAPI servers name the address this server listens on', async () => {
    const s = current();
    const host = new URL(s.httpUrl).host;
    for (const name of ['voice-events', 'contact-center-events']) {
      const servers = (await doc(s, name)).servers as Record<string, { host: string; protocol: string }>;
      const all = Object.values(servers);
      assert.ok(all.length > 0, name);
      for (const server of all) {
        assert.equal(server.host, host, name);
        assert.equal(server.protocol, 'ws', name);
      }
    }
    // Webhook deliveries go to the receiver, not to this server: its server entry stays as written.
    const receiver = (await doc(s, 'voice-webhooks')).servers as Record<
      string,
      { host: string; protocol: string }
    >;
    assert.deepEqual(
      Object.values(receiver).map((r) => [r.host, r.protocol]),
      [['{receiver}', 'https']],
    );
  });
});
