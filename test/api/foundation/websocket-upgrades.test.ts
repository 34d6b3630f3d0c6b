import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import WebSocket from 'ws';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';

/**
 * Sends a raw upgrade request (with a Sec-WebSocket-Key unless `key` is false) and returns
 * everything the server wrote before it closed the connection.
 */
function rawUpgrade(
  server: TestServer,
  path: string,
  headers: Record<string, string> = {},
  key = true,
): Promise<string> {
  const { port } = new URL(server.httpUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    const lines = [
      `GET ${path} HTTP/1.1`,
      'Host: 127.0.0.1',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      ...(key ? ['Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=='] : []),
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

describe('WebSocket upgrades go through the router, hooks and handlers', () => {
  const current = suiteServer();

  test('an upgrade to a REST address gets that address’s HTTP answer, then the connection closes', async () => {
    const answer = await rawUpgrade(current(), '/api/v1/calls', { Authorization: basic('101@1001:1234') });
    assert.match(answer, /^HTTP\/1\.1 200 /);
    assert.match(answer, /content-type: application\/hal\+json/i);
    assert.match(answer, /"_links"/);
  });

  test('an upgrade to an unknown address is 404, then the connection closes', async () => {
    assert.match(await rawUpgrade(current(), '/nowhere'), /^HTTP\/1\.1 404 /);
  });

  test('an upgrade refused by the scope’s hooks is answered by them (voice Basic auth: 401)', async () => {
    const answer = await rawUpgrade(current(), '/api/ws');
    assert.match(answer, /^HTTP\/1\.1 401 /);
    assert.match(answer, /"errorCode":"UNAUTHORIZED"/);
  });

  test('a malformed upgrade to a socket address is refused by the WebSocket server', async () => {
    assert.match(await rawUpgrade(current(), '/6/v2/sock', {}, false), /^HTTP\/1\.1 400 /);
  });

  test('both socket addresses upgrade, and the server sees each connection', async () => {
    const server = current();
    const seen: string[] = [];
    const onConnection = (_ws: WebSocket, req: { url?: string }) => seen.push(req.url ?? '');
    for (const node of server.nodes) node.app.websocketServer.on('connection', onConnection);
    const opened = (url: string, headers: Record<string, string> = {}) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, { headers });
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const voice = await opened(`${server.wsUrl}/api/ws`, { authorization: basic('101@1001:1234') });
    const cc = await opened(`${server.wsUrl}/6/v2/sock`);
    assert.deepEqual(seen, ['/api/ws', '/6/v2/sock']);
    for (const node of server.nodes) node.app.websocketServer.off('connection', onConnection);
    voice.close();
    cc.close();
  });
});
