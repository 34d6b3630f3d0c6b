/**
 * A contact-center socket whose connect fails inside the server (the token store unreachable) is
 * answered and closed, and the server goes on: the rejection used to escape the socket's message
 * listener, and an unhandled rejection ends the process.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
before(async () => (server = await startTestServer()));
after(() => server.stop());

test('a connect whose token cannot be looked up is refused 1011, and the server serves on', async () => {
  // The store's table gone: every look-up of a token not in memory fails, as with the database down.
  for (const node of server.nodes)
    await node.runtime.db.kysely.schema.dropTable('cc_tokens').ifExists().execute();
  const ws = new WebSocket(`${server.httpUrl.replace(/^http/, 'ws')}/6/v2/sock`);
  const messages: unknown[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ request: 'connect', token: 'not-in-memory' }));
  assert.equal(await closed, 1011);
  assert.deepEqual(messages, [{ response: 'connect', success: false, reason: 'Service Unavailable' }]);
  const alive = await server.fetch('/api/v1', { auth: 'admin:admin' });
  assert.equal(alive.status, 200, 'the server is still up');
});
