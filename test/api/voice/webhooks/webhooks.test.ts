import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../../helpers/server.js';
import { presence } from '../../../helpers/resume.js';
import { ADMIN, CAROL, getJson } from '../voice-helpers.js';
import { startReceiver, until, verify } from './receiver.js';

const SECRET = 'whsec_test-secret-0123456789abcdef';
const LOCAL = { webhooksAllowHttp: true, webhooksAllowPrivate: true, webhookTimeoutMs: 300 };

async function register(s: TestServer, url: string, extra: Record<string, unknown> = {}) {
  return getJson(s, '/api/v1/webhooks', CAROL, {
    method: 'POST',
    json: { url, secret: SECRET, presenceEventAccounts: ['102@1001'], ...extra },
  });
}

/** Advances the virtual clock in steps until `cond` holds (each step lets attempts run). */
async function advanceUntil(s: TestServer, cond: () => boolean, what: string, stepMs = 10_000) {
  for (let i = 0; i < 200 && !cond(); i++) {
    s.runtime.clock.advance(stepMs);
    await new Promise((r) => setTimeout(r, 20));
  }
  await until(cond, what);
}

const deliveries = async (s: TestServer, hook: { _links: { 'v1:webhookDeliveries': { href: string } } }) =>
  (await getJson(s, hook._links['v1:webhookDeliveries'].href, CAROL)).body._embedded.deliveries as {
    deliveryId: string;
    messageId: string;
    status: string;
    attempts: { statusCode?: number; error?: string }[];
    _links: { 'v1:redeliver': { href: string } };
  }[];

describe('webhooks', () => {
  let s: TestServer;
  after(() => s?.stop());

  test('linked from the v1 root; https only by default; the secret is shown once', async () => {
    s = await startTestServer({ webhooksAllowPrivate: true });
    const root = await getJson(s, '/api/v1', CAROL);
    assert.equal(root.body._links['v1:webhooks'].href, '/api/v1/webhooks{?expand,filter}');
    const http = await register(s, 'http://127.0.0.1:9/hook');
    assert.equal(http.status, 400);
    assert.match(http.body.message ?? JSON.stringify(http.body), /url/);
    const created = await getJson(s, '/api/v1/webhooks', CAROL, {
      method: 'POST',
      json: { url: 'https://127.0.0.1:9/hook', presenceEventAccounts: ['102@1001'] },
    });
    assert.equal(created.status, 201);
    assert.match(created.body.secret, /^whsec_/);
    const read = await getJson(s, created.headers.get('location')!, CAROL);
    assert.equal(read.status, 200);
    assert.equal('secret' in read.body, false);
    assert.equal(read.body.failing, false);
    const foreign = await getJson(s, '/api/v1/webhooks', CAROL, {
      method: 'POST',
      json: { url: 'https://127.0.0.1:9/hook', presenceEventAccounts: ['101@1001'] },
    });
    assert.equal(foreign.status, 403, 'a user may name only their own extension, as in a subscription set');
    assert.equal(
      (await getJson(s, created.headers.get('location')!, CAROL, { method: 'DELETE' })).status,
      200,
    );
    assert.equal((await getJson(s, created.headers.get('location')!, CAROL)).status, 404);
    // The simulator's reset goes back to the demo world, which has no webhooks.
    const kept = await register(s, 'https://127.0.0.1:9/hook');
    assert.equal(kept.status, 201);
    const reset = await s.fetch('/sim/v1/reset', { method: 'POST', auth: ADMIN });
    assert.equal(reset.status, 204);
    assert.equal((await getJson(s, kept.headers.get('location')!, CAROL)).status, 404);
    await s.stop();
  });

  test('a receiver failing twice then succeeding gets every event once, in order, signed; redelivery', async () => {
    let failures = 2;
    const rx = await startReceiver((_n, res) => {
      res.statusCode = failures-- > 0 ? 500 : 204;
      res.end();
    });
    s = await startTestServer(LOCAL);
    try {
      const hook = await register(s, rx.url);
      assert.equal(hook.status, 201);
      presence(s, 3);
      const ok = () => rx.received.filter((_r, i) => i >= 2);
      await advanceUntil(s, () => ok().length >= 3, 'three successful deliveries');
      assert.equal(rx.received.length, 5);
      // In order: the two failed tries were of the first event; nothing overtook it.
      const firstId = rx.received[0].headers['webhook-id'];
      assert.equal(rx.received[1].headers['webhook-id'], firstId);
      assert.equal(rx.received[2].headers['webhook-id'], firstId);
      const bodies = ok().map((r) => JSON.parse(r.body));
      assert.deepEqual(
        bodies.map((b) => b.event),
        ['dndOn', 'dndOff', 'dndOn'],
      );
      assert.equal(new Set(bodies.map((b) => b.deliveryId)).size, 3, 'each event once');
      for (let i = 1; i < 3; i++)
        assert.ok(bodies[i].sequence > bodies[i - 1].sequence, 'sequence increases');
      for (const r of rx.received) {
        assert.ok(verify(SECRET, r), 'valid signature');
        assert.equal(r.headers['webhook-id'], JSON.parse(r.body).deliveryId);
      }
      assert.equal(bodies[0].webhookId, hook.body.webhookId);
      assert.equal(bodies[0].observedParty, '102@1001');
      assert.equal(verify('some-other-secret-value', rx.received[2]), false);

      const log = await deliveries(s, hook.body);
      assert.deepEqual(
        log.map((d) => d.status),
        ['delivered', 'delivered', 'delivered'],
      );
      assert.deepEqual(
        log[0].attempts.map((a) => a.statusCode),
        [500, 500, 204],
      );
      assert.equal(log[0].attempts[0].error, 'status 500');

      // Redeliver the first: the same message (id, body) again, as a new log entry.
      const again = await getJson(s, log[0]._links['v1:redeliver'].href, CAROL, { method: 'POST' });
      assert.equal(again.status, 202);
      await until(() => rx.received.length === 6, 'the redelivery');
      assert.equal(rx.received[5].body, rx.received[2].body);
      assert.equal(rx.received[5].headers['webhook-id'], firstId);
      assert.ok(verify(SECRET, rx.received[5]));
      let after = await deliveries(s, hook.body);
      for (let i = 0; i < 100 && after[3]?.status !== 'delivered'; i++)
        after = await deliveries(s, hook.body);
      assert.equal(after.length, 4);
      assert.equal(after[3].status, 'delivered');
      assert.equal(after[3].messageId, log[0].messageId);
      // Every relation the webhook resources link has its relation document.
      for (const rel of ['webhooks', 'webhookDeliveries', 'redeliver'])
        assert.equal((await getJson(s, `/api/v1/rels/${rel}`, CAROL)).status, 200, rel);
    } finally {
      await s.stop();
      await rx.close();
    }
  });

  test('a receiver that never answers: each try times out, and after the retry window the webhook is failing', async () => {
    const rx = await startReceiver(() => {
      /* never answers */
    });
    s = await startTestServer({ ...LOCAL, webhookRetryMs: 30_000 });
    try {
      const hook = await register(s, rx.url);
      presence(s, 1);
      let log = await deliveries(s, hook.body);
      for (let tries = 0; tries < 20 && log[0].status === 'pending'; tries++) {
        // Wait for the try in flight to time out, then move the clock past the back-off.
        const seen = log[0].attempts.length;
        for (let i = 0; i < 300 && log[0].attempts.length === seen && log[0].status === 'pending'; i++) {
          await new Promise((r) => setTimeout(r, 20));
          log = await deliveries(s, hook.body);
        }
        s.runtime.clock.advance(10_000);
      }
      assert.equal(log[0].status, 'failed');
      assert.ok(log[0].attempts.length >= 2, 'retried');
      assert.ok(log[0].attempts.every((a) => a.error === 'timeout' && a.statusCode === undefined));
      const read = await getJson(s, hook.headers.get('location')!, CAROL);
      assert.equal(read.body.failing, true);
      assert.equal(read.body.pendingDeliveries, 0);
    } finally {
      await s.stop();
      await rx.close();
    }
  });
  test('rotating the secret: the old one still verifies for the grace period, then only the new one', async () => {
    const rx = await startReceiver((_n, res) => res.end());
    s = await startTestServer(LOCAL);
    try {
      const hook = await register(s, rx.url);
      const NEW = 'whsec_rotated-secret-abcdefghijkl';
      const rotated = await getJson(s, `${hook.headers.get('location')}/secret`, CAROL, {
        method: 'POST',
        json: { secret: NEW },
      });
      assert.equal(rotated.status, 200);
      assert.equal(rotated.body.secret, NEW);
      assert.equal('secret' in (await getJson(s, hook.headers.get('location')!, CAROL)).body, false);
      presence(s, 1);
      await until(() => rx.received.length === 1, 'the first delivery');
      assert.ok(verify(NEW, rx.received[0]), 'the new secret verifies');
      assert.ok(verify(SECRET, rx.received[0]), 'the old secret still verifies within the grace');
      s.runtime.clock.advance(25 * 3_600_000);
      presence(s, 1);
      await until(() => rx.received.length === 2, 'the second delivery');
      assert.ok(verify(NEW, rx.received[1]));
      assert.equal(verify(SECRET, rx.received[1]), false, 'the old secret no longer verifies');
    } finally {
      await s.stop();
      await rx.close();
    }
  });
});
