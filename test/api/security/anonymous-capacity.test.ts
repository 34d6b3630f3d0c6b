import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type WebSocket from 'ws';
import { firstAnswers, getBasic, grant, heldRequest, send, upgrade } from '../../helpers/raw-http.js';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';

const ATTACKER = '127.0.0.2';

async function bearer(s: TestServer, username: string): Promise<string> {
  const r = await grant(s, username, '1234');
  assert.equal(r.status, 200, username);
  return JSON.parse(r.body).access_token;
}

/**
 * Issue 14, finding 3: the contact-center limiter took a slot before anything was verified,
 * keyed on the raw Authorization header, so 100 slow token POSTs with made-up bearer headers from
 * one address answered every REST request of both APIs with 503.
 */
describe('no anonymous client holds authenticated REST capacity', () => {
  const server = suiteServer({ limitInflight: 100, limitAnonymousPerIp: 3, busyDelayMs: 500 });

  test('100 slow token POSTs with made-up bearer headers starve neither API', async () => {
    const s = server();
    const token = await bearer(s, '100@1001');
    const held = Array.from({ length: 100 }, () =>
      heldRequest(s, '/6/v2/api/oauth/token', {
        from: ATTACKER,
        headers: { authorization: `Bearer ${randomBytes(16).toString('hex')}` },
      }),
    );
    try {
      // The attacker's own budget: all but 3 of its token requests are refused as busy.
      const refused = await firstAnswers(
        held.map((h) => h.answer),
        97,
      );
      assert.equal(refused.length, 97);
      assert.ok(
        refused.every((status) => status === 503),
        `answers: ${[...new Set(refused)]}`,
      );
      // Everyone else is served by both APIs, and can still get a token.
      assert.equal((await getBasic(s, '/api/v1', '101@1001:1234')).status, 200);
      const cc = await send(s, '/6/v2/api/extensions', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(cc.status, 200);
      assert.equal((await grant(s, '102@1001', '1234')).status, 200);
    } finally {
      for (const h of held) h.abort();
    }
  });
});

describe('slow clients are timed out', () => {
  const server = suiteServer({ headerTimeoutMs: 300, bodyTimeoutMs: 600, limitAnonymousPerIp: 1 });

  test('a body that never completes gets 408 or a closed connection, and its slot comes back', async () => {
    const s = server();
    const from = '127.0.0.5';
    const slow = heldRequest(s, '/6/v2/api/oauth/token', { from });
    const status = await slow.answer;
    assert.ok(status === 408 || status === -1, `status ${status}`);
    // The one anonymous slot of that address is free again.
    assert.equal((await grant(s, '101@1001', '1234', { from })).status, 200);
    const voice = heldRequest(s, '/api/v1/calls', { headers: { authorization: basic('101@1001:1234') } });
    const voiceStatus = await voice.answer;
    assert.ok(voiceStatus === 408 || voiceStatus === -1, `status ${voiceStatus}`);
  });

  test('headers that never complete get 408 or a closed connection', async () => {
    const s = server();
    const { port } = new URL(s.httpUrl);
    const received = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let data = '';
      socket.on('data', (d) => (data += d));
      socket.on('error', reject);
      socket.on('close', () => resolve(data));
      socket.write('GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    });
    assert.ok(received === '' || /^HTTP\/1\.1 408 /.test(received), received);
  });

  test('an open WebSocket is not a slow request: it outlives the request time-outs', async () => {
    const s = server();
    const { ws } = await upgrade(s, '/api/ws', { headers: { authorization: basic('103@1001:1234') } });
    assert.ok(ws);
    await sleep(1_500);
    assert.equal(ws.readyState, ws.OPEN);
    ws.close();
  });
});

/**
 * Issue 14, finding 4: a `/6/v2/sock` socket took one of the global slots before `connect`, so
 * 4,000 unauthenticated sockets refused legitimate upgrades. Sockets that have not connected
 * draw from their own pool, capped per address.
 */
describe('no anonymous socket holds authenticated socket capacity', () => {
  const server = suiteServer({ wsMax: 4, wsPerClient: 1, wsPendingPerIp: 5, wsConnectTimeoutMs: 30_000 });

  test('60 sockets that never connect leave 5 open and refuse no legitimate socket', async () => {
    const s = server();
    const anonymous = await Promise.all(
      Array.from({ length: 60 }, () => upgrade(s, '/6/v2/sock', { from: ATTACKER })),
    );
    const sockets = anonymous.map((a) => a.ws as WebSocket);
    try {
      // Whichever arrived first: 5 stay open, every other one is closed at once with 1013.
      const codes = await firstAnswers(
        anonymous.map((a) => a.closed),
        55,
      );
      assert.equal(codes.length, 55);
      assert.ok(
        codes.every((c) => c === 1013),
        `close codes: ${[...new Set(codes)]}`,
      );
      assert.equal(sockets.filter((ws) => ws.readyState === ws.OPEN).length, 5);

      // Every global slot is still there for clients that authenticate, on both APIs.
      const opened: WebSocket[] = [];
      for (const user of ['100@1001', '101@1001', '102@1001']) {
        const token = await bearer(s, user);
        const { ws, first } = await upgrade(s, '/6/v2/sock');
        assert.ok(ws);
        opened.push(ws);
        ws.send(JSON.stringify({ request: 'connect', token }));
        assert.deepEqual(JSON.parse(await first), { response: 'connect', success: true }, user);
      }
      const voice = await upgrade(s, '/api/ws', { headers: { authorization: basic('103@1001:1234') } });
      assert.equal(voice.status, 101);
      opened.push(voice.ws as WebSocket);
      for (const ws of opened) ws.close();
    } finally {
      for (const ws of sockets) ws.close();
    }
  });
});
