import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import WebSocket from 'ws';
import { buildApp } from '../../../src/server/app.js';
import { DEFAULTS } from '../../../src/server/config.js';
import { createRuntime } from '../../../src/server/runtime.js';
import { socketRoute } from '../../../src/api/transport/websockets.js';

test('graceful shutdown: an in-flight request completes and an open WebSocket gets 1001', async () => {
  const config = {
    ...DEFAULTS,
    port: 0,
    db: join(mkdtempSync(join(tmpdir(), 'sb-shutdown-')), 't.db'),
    clock: 'virtual' as const,
    logLevel: 'silent',
  };
  const runtime = await createRuntime(config, pino({ level: 'silent' }));
  const app = await buildApp(runtime);
  let releaseSlow!: () => void;
  const slowStarted = new Promise<void>((started) => {
    app.get('/test/slow', async () => {
      started();
      await new Promise<void>((r) => (releaseSlow = r));
      return { done: true };
    });
  });
  socketRoute(app, {
    url: '/test/ws',
    handler: (_req, reply) => reply.code(426).send(),
    wsHandler: (socket) => socket.send('hello'),
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as { port: number }).port;

  const ws = new WebSocket(`ws://127.0.0.1:${port}/test/ws`);
  await new Promise((r) => ws.once('message', r));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));

  const inFlight = fetch(`http://127.0.0.1:${port}/test/slow`).then(async (r) => ({
    status: r.status,
    // Told to close, so shutdown need not wait for the keep-alive time-out.
    connection: r.headers.get('connection'),
    body: await r.json(),
  }));
  await slowStarted;

  let dbClosed = false;
  const closing = app.close().then(async () => {
    await runtime.close();
    dbClosed = true;
  });
  assert.equal(await closed, 1001, 'socket closed with 1001 going away');

  // New connections are refused while the in-flight request is still running.
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`));
  assert.equal(dbClosed, false, 'database stays open while a request is in flight');

  releaseSlow();
  const res = await inFlight;
  assert.deepEqual(res, { status: 200, connection: 'close', body: { done: true } });
  await closing;
  assert.equal(dbClosed, true);
  assert.equal(await runtime.db.ping(), false, 'database closed after shutdown');
});
