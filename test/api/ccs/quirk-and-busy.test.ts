import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { untilStatus } from '../../helpers/in-flight.js';
import { heldRequest, keptHeld } from '../../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { BASE, CcClient } from './cc-client.js';

let s: TestServer;
let admin: CcClient;
before(async () => {
  s = await startTestServer({ busyDelayMs: 300, limitPerClient: 3 });
  admin = await CcClient.login(s, '100@1001');
});
after(() => s.stop());

test('a bad call id on the single-call endpoint answers 400 with the success: true quirk', async () => {
  const r = await admin.get('calls/not-a-call');
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { success: true, reason: 'Invalid call id' });
  // Other call-control requests keep the normal 400 body.
  const kill = await admin.post('calls/not-a-call', { request: 'kill' });
  assert.equal(kill.status, 400);
  assert.equal(kill.body.success, false);
});

test('a 4th concurrent request of one client waits, then gets the contact-center 503 after the busy delay', async () => {
  // Three requests held in flight: their bodies never finish arriving (each sent again should a
  // probe below have taken its slot first, as on a cluster's node another node's probe can).
  const held = Array.from({ length: 3 }, () =>
    keptHeld(() =>
      heldRequest(s, `${BASE}/agent_state`, { headers: { authorization: `Bearer ${admin.token}` } }),
    ),
  );
  // A route of the API (an address without one is answered 404 before any token or slot),
  // asked until the held requests hold their slots (each is admitted once its token is verified).
  const extensions = async () => {
    const r = await s.fetch(`${BASE}/extensions`, { headers: { authorization: `Bearer ${admin.token}` } });
    return { status: r.status, headers: r.headers, body: await r.text() };
  };
  const res = await untilStatus(503, extensions);
  assert.equal(res.status, 503);
  assert.ok(Number(res.headers.get('retry-after')) >= 1);
  assert.deepEqual(JSON.parse(res.body), { success: false, reason: 'Service Unavailable' });
  for (const h of held) h.abort();
  // Slots come back once the held requests are gone.
  const again = await untilStatus(200, extensions);
  assert.equal(again.status, 200);
});
