import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { isForbiddenAddress } from '../../../../src/api/voice/webhooks/address-guard.js';
import { startTestServer } from '../../../helpers/server.js';
import { presence } from '../../../helpers/resume.js';
import { CAROL, getJson } from '../voice-helpers.js';
import { startReceiver, until, verify } from './receiver.js';

const SECRET = 'whsec_guard-secret-0123456789';

describe('webhooks: SSRF guard', () => {
  test('private, loopback, link-local and mapped addresses are forbidden; public ones are not', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      assert.equal(isForbiddenAddress(a), true, a);
    for (const a of ['8.8.8.8', '2606:4700::1111', '::ffff:1.1.1.1'])
      assert.equal(isForbiddenAddress(a), false, a);
  });

  test('by default a delivery to a loopback receiver (by address or by a name resolving to it) is refused, never sent', async () => {
    const rx = await startReceiver((_n, res) => res.end());
    const s = await startTestServer({ webhooksAllowHttp: true });
    try {
      const hooks = [];
      for (const url of [rx.url, `http://localhost:${rx.port}/hook`]) {
        const created = await getJson(s, '/api/v1/webhooks', CAROL, {
          method: 'POST',
          json: { url, secret: SECRET, presenceEventAccounts: ['102@1001'] },
        });
        assert.equal(created.status, 201);
        hooks.push(created.body);
      }
      presence(s, 1);
      for (const hook of hooks) {
        const href = hook._links['v1:webhookDeliveries'].href;
        let log = (await getJson(s, href, CAROL)).body._embedded.deliveries;
        for (let i = 0; i < 200 && log[0]?.attempts.length === 0; i++) {
          await new Promise((r) => setTimeout(r, 10));
          log = (await getJson(s, href, CAROL)).body._embedded.deliveries;
        }
        assert.match(log[0].attempts[0].error, /^refused: /);
        assert.equal(log[0].attempts[0].statusCode, undefined);
      }
      assert.equal(rx.received.length, 0, 'the receiver was never reached');
    } finally {
      await s.stop();
      await rx.close();
    }
  });
});

describe('webhooks: durable queue', () => {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-webhooks-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('deliveries pending at a restart are sent by the restarted node, in order', async () => {
    const db = join(dir, 'hooks.db');
    let up = false;
    const rx = await startReceiver((_n, res) => {
      res.statusCode = up ? 200 : 503;
      res.end();
    });
    const config = { db, webhooksAllowHttp: true, webhooksAllowPrivate: true };
    const first = await startTestServer(config);
    const created = await getJson(first, '/api/v1/webhooks', CAROL, {
      method: 'POST',
      json: { url: rx.url, secret: SECRET, presenceEventAccounts: ['102@1001'] },
    });
    presence(first, 3);
    await until(() => rx.received.length >= 1, 'the first try');
    await first.stop();

    up = true;
    const second = await startTestServer(config);
    try {
      const tries = rx.received.length;
      for (let i = 0; i < 200 && rx.received.length < tries + 3; i++) {
        second.runtime.clock.advance(10_000);
        await new Promise((r) => setTimeout(r, 20));
      }
      await until(() => rx.received.length >= tries + 3, 'the three events after the restart');
      const delivered = rx.received.slice(tries).map((r) => JSON.parse(r.body));
      assert.deepEqual(
        delivered.map((b) => b.event),
        ['dndOn', 'dndOff', 'dndOn'],
      );
      for (let i = 1; i < 3; i++) assert.ok(delivered[i].sequence > delivered[i - 1].sequence);
      assert.ok(rx.received.every((r) => verify(SECRET, r)));
      const read = await getJson(second, created.headers.get('location')!, CAROL);
      assert.equal(read.status, 200);
      assert.equal(read.body.pendingDeliveries, 0);
    } finally {
      await second.stop();
      await rx.close();
    }
  });
});
