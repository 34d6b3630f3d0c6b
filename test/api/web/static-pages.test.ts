import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/** A raw GET that keeps the path as written (fetch would normalise `..`). */
function rawGet(server: TestServer, path: string): Promise<{ status: number; body: string }> {
  const url = new URL(server.httpUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET' }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const subprotocols = (userPass: string) => [
  'switchboard',
  `basic.${Buffer.from(userPass).toString('base64url')}`,
];

function open(
  server: TestServer,
  protocols: string[],
): Promise<{ ws: WebSocket; first: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${server.httpUrl.replace('http', 'ws')}/api/ws`, protocols);
    ws.once('message', (data) => resolve({ ws, first: String(data), protocol: ws.protocol }));
    ws.once('unexpected-response', (_req, res) =>
      reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })),
    );
    ws.once('error', reject);
  });
}

describe('browser tool pages are served by Switchboard', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => server.stop());

  test('every page is public, with its content type, no-cache and a CSP', async () => {
    for (const path of [
      '/6/restapi/apitest.html',
      '/6/restapi/wstest.html',
      '/api/browser/browser.html',
      '/api/browser/graph.html',
      '/api/browser/list.html',
      '/api/wstool/wstool.html',
      '/console/',
      '/console',
    ]) {
      const res = await server.fetch(path);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8', path);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'/, path);
      assert.match(await res.text(), /<html lang="en">/, path);
    }
    const js = await server.fetch('/assets/tools.js');
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const css = await server.fetch('/console/console.css');
    assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  });

  test('no page loads anything from another origin', async () => {
    for (const path of [
      '/console/',
      '/api/browser/graph.html',
      '/6/restapi/apitest.html',
      '/api/wstool/wstool.html',
    ]) {
      const html = await (await server.fetch(path)).text();
      assert.doesNotMatch(html, /(src|href)="(https?:)?\/\//, path);
    }
  });

  test('an unchanged file answers 304 to its ETag; HEAD has the headers', async () => {
    const first = await server.fetch('/api/browser/browser.js');
    const etag = first.headers.get('etag');
    assert.ok(etag);
    const again = await server.fetch('/api/browser/browser.js', { headers: { 'if-none-match': etag } });
    assert.equal(again.status, 304);
    const head = await server.fetch('/api/browser/browser.js', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('etag'), etag);
  });

  test('paths outside src/web, hidden files and unknown types are 404', async () => {
    for (const path of [
      '/assets/../../package.json',
      '/assets/%2e%2e/%2e%2e/package.json',
      '/assets/..%2f..%2fpackage.json',
      '/console/..%5c..%5cpackage.json',
      '/console/%00index.html',
      '/console/.hidden',
      '/api/browser/missing.html',
    ]) {
      const res = await rawGet(server, path);
      assert.equal(res.status, 404, path);
      assert.doesNotMatch(res.body, /"name": "switchboard"/, path);
    }
  });

  test('/api itself still needs credentials', async () => {
    assert.equal((await server.fetch('/api')).status, 401);
    assert.equal((await server.fetch('/api', { auth: '101@1001:1234' })).status, 200);
  });
});

describe('/api/ws takes Basic credentials as a subprotocol (browsers cannot set Authorization)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ lockoutFailures: 2 });
  });
  after(async () => server.stop());

  test('valid credentials open the socket; the server picks the plain protocol, not the credentials', async () => {
    const { ws, first, protocol } = await open(server, subprotocols('101@1001:1234'));
    assert.match(JSON.parse(first).webSocketId, /^[0-9a-f-]{36}$/);
    assert.equal(protocol, 'switchboard');
    ws.close();
  });

  test('wrong credentials are refused with 401 and count towards the lock-out', async () => {
    await assert.rejects(open(server, subprotocols('102@1001:0000')), { status: 401 });
    await assert.rejects(open(server, subprotocols('102@1001:0000')));
    await assert.rejects(open(server, subprotocols('102@1001:1234')), { status: 403 });
    const rest = await server.fetch('/api', { auth: '102@1001:1234' });
    assert.equal(rest.status, 403);
    assert.equal(((await rest.json()) as { errorCode: string }).errorCode, 'LOCKED_OUT');
  });

  test('without any credentials the upgrade is refused', async () => {
    await assert.rejects(open(server, ['switchboard']), { status: 401 });
  });
});
