import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { DEFAULTS } from '../../../src/server/config.js';
import { startServer } from '../../../src/server/serve.js';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';
import { BOB } from '../voice/voice-helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WIDGET = 'https://widget.example';

/** Opens a socket with these headers; resolves with `open` or the refusal's HTTP status. */
function upgrade(s: TestServer, path: string, headers: Record<string, string>): Promise<'open' | number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(new URL(path, s.wsUrl), { headers });
    ws.once('open', () => {
      ws.close();
      resolve('open');
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', reject);
  });
}

describe('X-Request-Id', () => {
  const current = suiteServer();

  test('a client’s own id comes back; without one the server makes one', async () => {
    const s = current();
    const own = await s.fetch('/api/v1/calls', { auth: BOB, headers: { 'x-request-id': 'trace-42.a:b' } });
    assert.equal(own.headers.get('x-request-id'), 'trace-42.a:b');
    const made = await s.fetch('/api/v1/calls', { auth: BOB });
    assert.match(made.headers.get('x-request-id') ?? '', UUID);
  });

  test('every answer carries one: refusals, errors, both APIs, the simulator, pages', async () => {
    const s = current();
    for (const [path, init] of [
      ['/api/v1/calls', {}],
      ['/nowhere', {}],
      ['/6/v2/api/tenants', {}],
      ['/6/v2/api/oauth/token', { method: 'POST', json: { grant_type: 'password' } }],
      ['/sim/v1/state', {}],
      ['/healthz', {}],
      ['/metrics', {}],
    ] as const) {
      const r = await s.fetch(path, init);
      await r.arrayBuffer();
      assert.match(r.headers.get('x-request-id') ?? '', UUID, `${path} (${r.status})`);
    }
  });

  test('an id that is too long or has strange characters is replaced, not echoed', async () => {
    const s = current();
    for (const bad of ['x'.repeat(129), 'has space', 'semi;colon', '<script>']) {
      const r = await s.fetch('/api/v1/calls', { auth: BOB, headers: { 'x-request-id': bad } });
      await r.arrayBuffer();
      assert.match(r.headers.get('x-request-id') ?? '', UUID, bad);
    }
  });
});

describe('the access log', () => {
  test('names the principal (resolved, whatever spelling) and the request id', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l));
        done();
      },
    });
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'switchboard-log-'));
    const server = await startServer(
      { ...DEFAULTS, port: 0, db: join(dir, 't.db'), clock: 'virtual', logLevel: 'info' },
      pino({ level: 'info' }, sink),
    );
    try {
      const r = await fetch(`${server.httpUrl}/api/v1/calls`, {
        headers: { authorization: basic('101@01001:1234'), 'x-request-id': 'log-me-1' },
      });
      assert.equal(r.status, 200);
      await r.arrayBuffer();
      await new Promise((res) => setTimeout(res, 20));
      const done = lines.find((l) => l.msg === 'request completed' && l.reqId === 'log-me-1');
      assert.ok(done, JSON.stringify(lines.slice(-3)));
      assert.equal(done.principal, '101@1001');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('--cors-origins', () => {
  const current = suiteServer({ corsOrigins: [WIDGET] });

  const preflight = (s: TestServer, path: string, origin: string, method = 'GET') =>
    s.fetch(path, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type',
      },
    });

  test('a preflight from a listed origin is answered before authentication, on both APIs and the token endpoint', async () => {
    const s = current();
    for (const [path, method] of [
      ['/api/v1/calls', 'POST'],
      ['/api/v1/tenants/1001/extensions/101', 'PATCH'],
      ['/6/v2/api/tenants', 'GET'],
      ['/6/v2/api/oauth/token', 'POST'],
      ['/sim/v1/state', 'GET'],
    ]) {
      const r = await preflight(s, path, WIDGET, method);
      assert.equal(r.status, 204, path);
      assert.equal(r.headers.get('access-control-allow-origin'), WIDGET, path);
      assert.match(r.headers.get('access-control-allow-methods') ?? '', new RegExp(method), path);
      assert.match(r.headers.get('access-control-allow-headers') ?? '', /Authorization/, path);
    }
  });

  test('an unlisted origin gets no CORS headers at all', async () => {
    const s = current();
    const r = await preflight(s, '/api/v1/calls', 'https://evil.example');
    await r.arrayBuffer();
    assert.notEqual(r.status, 204);
    for (const h of [
      'access-control-allow-origin',
      'access-control-allow-methods',
      'access-control-allow-headers',
    ]) {
      assert.equal(r.headers.get(h), null, h);
    }
    const get = await s.fetch('/api/v1/calls', { auth: BOB, headers: { origin: 'https://evil.example' } });
    await get.arrayBuffer();
    assert.equal(get.headers.get('access-control-allow-origin'), null);
  });

  test('answers to a listed origin may be read by its pages (and expose the request id)', async () => {
    const s = current();
    const r = await s.fetch('/api/v1/calls', { auth: BOB, headers: { origin: WIDGET } });
    await r.arrayBuffer();
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), WIDGET);
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
  });

  test('a socket upgrade from an unlisted origin is refused before authentication; listed, same-origin and non-browser clients open', async () => {
    const s = current();
    // One user each: a client holds one socket at a time.
    const as = (ext: number) => ({ authorization: basic(`${ext}@1001:1234`) });
    assert.equal(await upgrade(s, '/api/ws', { ...as(101), origin: 'https://evil.example' }), 403);
    assert.equal(await upgrade(s, '/6/v2/sock', { origin: 'https://evil.example' }), 403);
    assert.equal(await upgrade(s, '/api/ws', { ...as(102), origin: WIDGET }), 'open');
    assert.equal(await upgrade(s, '/api/ws', { ...as(103), origin: s.httpUrl }), 'open');
    assert.equal(await upgrade(s, '/api/ws', as(104)), 'open');
  });
});

describe('without --cors-origins', () => {
  const current = suiteServer();

  test('no origin gets CORS headers, and sockets do not check Origin', async () => {
    const s = current();
    const r = await s.fetch('/api/v1/calls', {
      method: 'OPTIONS',
      headers: { origin: WIDGET, 'access-control-request-method': 'GET' },
    });
    await r.arrayBuffer();
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    assert.equal(
      await upgrade(s, '/api/ws', {
        authorization: basic('101@1001:1234'),
        origin: 'https://elsewhere.example',
      }),
      'open',
    );
  });
});
