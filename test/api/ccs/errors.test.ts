import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { ccErrorHandler } from '../../../src/api/ccs/errors.js';
import { startTestServer } from '../../helpers/server.js';
import { BASE, CcClient } from './cc-client.js';

test('an unexpected failure answers the 500 body with success true', async () => {
  const app = Fastify({ logger: false });
  app.setErrorHandler(ccErrorHandler);
  app.get('/boom', async () => {
    throw new Error('bug');
  });
  const res = await app.inject({ method: 'GET', url: '/boom' });
  await app.close();
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { success: true, reason: 'Internal Server Error' });
});

test('bad JSON is a 400, oversized bodies 413, and failed password grants lock the user out', async () => {
  const server = await startTestServer({ bodyLimitBytes: 1024 });
  try {
    const admin = await CcClient.login(server, 'admin');
    const headers = { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' };
    const badJson = await server.fetch(`${BASE}/agent_state`, { method: 'POST', headers, body: '{nope' });
    assert.equal(badJson.status, 400);
    assert.equal(((await badJson.json()) as { success: boolean }).success, false);
    const big = await server.fetch(`${BASE}/agent_state`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ request: 'updateAgentState', name: 'x'.repeat(2000) }),
    });
    assert.equal(big.status, 413);

    const grant = (password: string) =>
      server.fetch(`${BASE}/oauth/token`, {
        method: 'POST',
        json: { grant_type: 'password', username: '103@1001', password },
      });
    for (let i = 0; i < 2; i++) assert.equal((await grant('0000')).status, 401);
    const third = await grant('0000');
    assert.equal(third.status, 403);
    assert.ok(third.headers.get('retry-after'));
    assert.equal((await grant('1234')).status, 403, 'locked out even with the right PIN');
    assert.equal((await grant('x')).status, 403);
    const other = await CcClient.login(server, '104@1001');
    assert.ok(other.token, 'other users are not affected');
  } finally {
    await server.stop();
  }
});
