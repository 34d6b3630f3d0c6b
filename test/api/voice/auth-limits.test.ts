import assert from 'node:assert/strict';
import { request } from 'node:http';
import { describe, test } from 'node:test';
import { untilInFlight } from '../../helpers/in-flight.js';
import { basic, simReset, startTestServer, type TestServer } from '../../helpers/server.js';
import { BOB, CAROL, getJson, openSocket } from './voice-helpers.js';

/** A POST whose body never completes: it holds its admission slot until `finish()`. */
function heldRequest(s: TestServer, auth: string) {
  const url = new URL('/api/v1/calls', s.httpUrl);
  let resolveStatus!: (n: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const req = request(url, {
    method: 'POST',
    headers: { authorization: basic(auth), 'content-type': 'application/json', 'content-length': '200' },
  });
  req.on('response', (res) => {
    res.resume();
    resolveStatus(res.statusCode!);
  });
  req.on('error', () => resolveStatus(-1));
  req.write('{"from":');
  return {
    status,
    finish: () => req.end(`${'"x"'}${' '.repeat(200 - 11)}}`),
    abort: () => req.destroy(),
  };
}

describe('authentication', () => {
  test('every username form and telco logins authenticate over HTTP', async () => {
    const s = await startTestServer();
    try {
      for (const u of ['101@1001', '101@1001.ID', '101@5555550100.DID', '101@acme.example.test.URI']) {
        const r = await getJson(s, '/api', `${u}:1234`);
        assert.equal(r.status, 200, u);
        assert.equal(r.body.tenantId, 1001);
      }
      assert.equal((await getJson(s, '/api', '101@1001.id:1234')).status, 401);
      assert.equal((await getJson(s, '/api', 'admin:admin')).status, 200);
    } finally {
      await s.stop();
    }
  });

  test('lock-out: after 3 failures the right PIN is refused; another user is unaffected', async () => {
    const s = await startTestServer();
    try {
      assert.equal((await getJson(s, '/api/v1', '101@1001:0000')).status, 401);
      assert.equal((await getJson(s, '/api/v1', '101@1001:0001')).status, 401);
      const third = await getJson(s, '/api/v1', '101@1001:0002');
      assert.equal(third.status, 403);
      const r = await getJson(s, '/api/v1', BOB);
      assert.equal(r.status, 403);
      assert.equal(r.body.errorCode, 'LOCKED_OUT');
      assert.equal(r.headers.get('retry-after'), '3600');
      assert.equal((await getJson(s, '/api/v1', CAROL)).status, 200);
      // The WebSocket upgrade is refused as well, without upgrading.
      await assert.rejects(openSocket(s, BOB), (e: { status?: number }) => e.status === 403);
      // The simulator reset forgets lock-outs.
      await simReset(s);
      assert.equal((await getJson(s, '/api/v1', BOB)).status, 200);
    } finally {
      await s.stop();
    }
  });

  test('failed WebSocket upgrades count toward the lock-out', async () => {
    const s = await startTestServer({ lockoutFailures: 2 });
    try {
      await assert.rejects(openSocket(s, '102@1001:9'), (e: { status?: number }) => e.status === 401);
      await assert.rejects(openSocket(s, '102@1001:9'), (e: { status?: number }) => e.status === 403);
      assert.equal((await getJson(s, '/api', CAROL)).body.errorCode, 'LOCKED_OUT');
    } finally {
      await s.stop();
    }
  });
});

describe('limits', () => {
  test('a 4th concurrent request of one client waits for a slot', async () => {
    const s = await startTestServer({ limitPerClient: 3, busyDelayMs: 5_000 });
    try {
      const held = [heldRequest(s, BOB), heldRequest(s, BOB), heldRequest(s, BOB)];
      await untilInFlight(s, 3);
      // Another client is not held back by BOB's slots.
      assert.equal((await getJson(s, '/api', CAROL)).status, 200);
      let fourth: number | undefined;
      const p = getJson(s, '/api', BOB).then((r) => (fourth = r.status));
      await new Promise((r) => setTimeout(r, 150));
      assert.equal(fourth, undefined, 'the 4th request must wait');
      held[0].finish();
      await p;
      assert.equal(fourth, 200);
      assert.equal(await held[0].status, 400);
      for (const h of held.slice(1)) h.abort();
    } finally {
      await s.stop();
    }
  });

  test('a request that cannot start within the busy delay gets 503 with Retry-After', async () => {
    const s = await startTestServer({ limitPerClient: 3, busyDelayMs: 300 });
    try {
      const held = [heldRequest(s, BOB), heldRequest(s, BOB), heldRequest(s, BOB)];
      await untilInFlight(s, 3);
      const r = await getJson(s, '/api/v1', BOB);
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '1');
      assert.match(r.headers.get('content-type')!, /^application\/problem\+json/);
      assert.equal(r.body.errorCode, 'BUSY');
      for (const h of held) h.abort();
      await new Promise((r) => setTimeout(r, 50));
      assert.equal((await getJson(s, '/api/v1', BOB)).status, 200);
    } finally {
      await s.stop();
    }
  });

  test('the global in-flight cap applies across clients', async () => {
    const s = await startTestServer({ limitInflight: 2, busyDelayMs: 300 });
    try {
      const held = [heldRequest(s, BOB), heldRequest(s, CAROL)];
      await untilInFlight(s, 2);
      assert.equal((await getJson(s, '/api', '103@1001:1234')).status, 503);
      for (const h of held) h.abort();
    } finally {
      await s.stop();
    }
  });

  test('WebSockets: one per client, a global maximum, idle close', async () => {
    const s = await startTestServer({ wsMax: 2, wsIdleMs: 1_000 });
    try {
      const a = await openSocket(s, BOB);
      // Traffic keeps `a` open; `b` idles out.
      const keepalive = setInterval(() => a.ws.send('keepalive'), 100);
      try {
        await assert.rejects(openSocket(s, BOB), (e: { status?: number }) => e.status === 429);
        const b = await openSocket(s, CAROL);
        const closedB = new Promise((r) => b.ws.once('close', r));
        await assert.rejects(openSocket(s, '103@1001:1234'), (e: { status?: number }) => e.status === 503);
        await closedB;
        assert.equal(a.ws.readyState, a.ws.OPEN);
        assert.ok(a.frames.length > 0 && a.frames.every((f) => f.text === 'keepalive'));
        // The freed slot admits a new socket.
        const c = await openSocket(s, '103@1001:1234');
        await c.close();
      } finally {
        clearInterval(keepalive);
      }
      await a.close();
    } finally {
      await s.stop();
    }
  });
});

describe('limits bookkeeping', () => {
  test('a waiting request whose client gives up does not leak its slot', async () => {
    const s = await startTestServer({ limitPerClient: 1, busyDelayMs: 2_000 });
    try {
      const { limitsFor } = await import('../../../src/api/limits/index.js');
      const held = heldRequest(s, BOB);
      await untilInFlight(s, 1);
      const abort = new AbortController();
      const waiting = s.fetch('/api', { auth: BOB, signal: abort.signal }).catch(() => 'aborted');
      await new Promise((r) => setTimeout(r, 50));
      abort.abort();
      assert.equal(await waiting, 'aborted');
      held.abort();
      await new Promise((r) => setTimeout(r, 100));
      assert.equal(limitsFor(s.runtime).requests.inFlight(), 0);
      assert.equal((await getJson(s, '/api', BOB)).status, 200);
      assert.equal(limitsFor(s.runtime).requests.inFlight(), 0);
    } finally {
      await s.stop();
    }
  });
});
