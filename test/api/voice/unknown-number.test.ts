import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

test('a call to an unknown number names the far party by the digits dialed', async () => {
  const made = await s.fetch('/api/v1/calls', {
    method: 'POST',
    auth: '101@1001:1234',
    json: { from: '101@1001', to: '123' },
  });
  assert.equal(made.status, 201);
  const { callId } = (await made.json()) as { callId: string };
  const call = await s.fetch(`/api/v1/calls/${callId}`, { auth: '101@1001:1234' });
  assert.equal(call.status, 200);
  const body = (await call.json()) as { to: string; callParties: { PartyId: string }[] };
  assert.equal(body.to, '123');
  const ids = body.callParties.map((p) => p.PartyId);
  assert.ok(ids.includes('123'), `callParties ${JSON.stringify(body.callParties)}`);
  assert.ok(!ids.includes('unknown'));
});
