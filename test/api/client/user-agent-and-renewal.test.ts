// Against a local stub server (not Switchboard): what the client puts on the wire, and how it
// reacts to answers a real server gives only in rare moments (an access token that expired).
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { CcClient, VoiceClient } from '../../../packages/client/src/index.js';

const UA = new RegExp(
  `^switchboard-client/\\d+\\.\\d+\\.\\d+ node/${process.versions.node.replace(/\./g, '\\.')}$`,
);

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('the client on the wire (stub server)', () => {
  let server: Server;
  let base: string;
  const http: Seen[] = [];
  const upgrades: Seen[] = [];
  const ccConnects: string[] = [];

  before(async () => {
    const wss = new WebSocketServer({ noServer: true });
    server = createServer(async (req, res) => {
      const body = await read(req);
      http.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const send = (status: number, json: unknown, type = 'application/json') => {
        res.writeHead(status, { 'content-type': type });
        res.end(JSON.stringify(json));
      };
      if (req.url === '/api') {
        return send(
          200,
          {
            _links: {
              self: { href: '/api' },
              'api:createWebsocket': { href: '/api/ws' },
              'api:v1': { href: '/api/v1' },
            },
          },
          'application/hal+json',
        );
      }
      if (req.url === '/6/v2/api/oauth/token') {
        const grant = JSON.parse(body);
        const token = grant.grant_type === 'password' ? 'A' : 'B';
        return send(200, {
          access_token: token,
          token_type: 'Bearer',
          expires_in: 3600,
          refresh_token: `r${token}`,
        });
      }
      if (req.url === '/6/v2/api/tenants') {
        // Token A has expired on the server (the client's clock does not know yet).
        if (req.headers.authorization !== 'Bearer B')
          return send(401, { status: 401, reason: 'Unauthorized' });
        return send(200, { success: true, total: '0', items: [] });
      }
      send(404, { success: false, reason: 'Not Found' });
    });
    server.on('upgrade', (req, socket, head) => {
      upgrades.push({ method: req.method!, url: req.url!, headers: req.headers, body: '' });
      wss.handleUpgrade(req, socket, head, (ws) => {
        if (req.url === '/api/ws') return ws.send(JSON.stringify({ webSocketId: 'stub-socket' }));
        ws.on('message', (data) => {
          const msg = JSON.parse(String(data));
          if (msg.request !== 'connect') return;
          ccConnects.push(msg.token);
          if (msg.token === 'B') return ws.send(JSON.stringify({ response: 'connect', success: true }));
          ws.send(JSON.stringify({ response: 'connect', success: false, reason: 'Unauthorized' }));
          ws.close(1008, 'unauthorized');
        });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  test('voice: the User-Agent and Basic credentials on REST and on the socket upgrade', async () => {
    // The stub speaks the plain socket (no resume), as a server of the spec would.
    const voice = new VoiceClient({
      url: base,
      username: '100@1001',
      password: '1234',
      socket: { resume: false },
    });
    const stream = await voice.events();
    assert.equal(stream.webSocketId, 'stub-socket');
    await voice.close();
    const root = http.find((r) => r.url === '/api')!;
    assert.match(root.headers['user-agent']!, UA);
    assert.equal(root.headers.authorization, `Basic ${Buffer.from('100@1001:1234').toString('base64')}`);
    const upgrade = upgrades.find((u) => u.url === '/api/ws')!;
    assert.match(upgrade.headers['user-agent']!, UA);
    assert.equal(upgrade.headers.authorization, root.headers.authorization);
  });

  test('contact center: an expired token is renewed with the refresh grant, then the request repeated', async () => {
    const cc = new CcClient({
      url: base,
      username: '100@1001',
      password: '1234',
      application: 'wallboard/1.0',
    });
    http.length = 0;
    assert.deepEqual((await cc.tenants()).items, []);
    assert.deepEqual(
      http.map((r) => [r.url, r.headers.authorization ?? JSON.parse(r.body).grant_type]),
      [
        ['/6/v2/api/oauth/token', 'password'],
        ['/6/v2/api/tenants', 'Bearer A'],
        ['/6/v2/api/oauth/token', 'refresh_token'],
        ['/6/v2/api/tenants', 'Bearer B'],
      ],
    );
    assert.equal(JSON.parse(http[2]!.body).refresh_token, 'rA');
    for (const r of http) {
      assert.match(r.headers['user-agent']!, /^wallboard\/1\.0 switchboard-client\/\S+ node\/\S+$/);
      assert.equal(r.headers['content-type'], 'application/json');
    }
  });

  test('contact center: a token the socket refuses is renewed once and the socket opened again', async () => {
    const cc = new CcClient({ url: base, username: '100@1001', password: '1234' });
    upgrades.length = 0;
    ccConnects.length = 0;
    const stream = await cc.events();
    assert.equal(stream.connected, true);
    assert.deepEqual(ccConnects, ['A', 'B']);
    assert.equal(upgrades.length, 2);
    for (const u of upgrades) {
      assert.equal(u.url, '/6/v2/sock');
      assert.match(u.headers['user-agent']!, UA);
    }
    await cc.close();
  });
});

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString()));
  });
}
