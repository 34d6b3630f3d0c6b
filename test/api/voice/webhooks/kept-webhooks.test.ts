/**
 * The webhook reads kept as text (route-core/read-cache.ts; webhook-resources.ts, on
 * `WebhookRegistry.generation`): each state is read twice, so the second answer is the kept one,
 * then read again after a change: a webhook registered, an event queued, an attempt failed, a
 * retry delivered, a redelivery, the `failing` mark, a delete, a reset. Everything goes through
 * the APIs (a DND change makes the events; the simulator moves the clock to the retries).
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { simReset, startTestServer, type TestServer } from '../../../helpers/server.js';
import { ALICE, BOB, CAROL, GRACE, getJson, readTwice, simAdvance } from '../voice-helpers.js';
import { startReceiver } from './receiver.js';

const LOCAL = {
  webhooksAllowHttp: true,
  webhooksAllowPrivate: true,
  webhookTimeoutMs: 300,
  webhookRetryMs: 30_000,
};
const LIST = '/api/v1/webhooks';

let s: TestServer;
before(async () => {
  s = await startTestServer(LOCAL);
});
after(() => s.stop());
beforeEach(() => simReset(s));

const twice = (path: string, auth = CAROL) => readTwice(s, path, auth);

/** Reads `path` as Carol until `check` holds of its body (deliveries are tried a moment later). */
async function eventually(path: string, check: (body: any) => boolean, what: string): Promise<any> {
  let body: unknown;
  for (let i = 0; i < 300; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 10));
    body = (await getJson(s, path, CAROL)).body;
    if (check(body)) return body;
  }
  assert.fail(`never ${what}: ${JSON.stringify(body)}`);
}

/** Carol's phone goes DND (on, or off again): a presence event her webhook hears. */
async function dnd(on: boolean) {
  const r = await getJson(s, '/api/v1/tenants/1001/users/102', ALICE, { method: 'PUT', json: { dnd: on } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

async function register(url: string) {
  const r = await getJson(s, LIST, CAROL, {
    method: 'POST',
    json: { url, presenceEventAccounts: ['102@1001'] },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { id: r.body.webhookId as string, href: r.headers.get('location')! };
}

type Delivery = { deliveryId: string; status: string; attempts: unknown[]; _links: any };
const log = (body: { _embedded: { deliveries: Delivery[] } }) => body._embedded.deliveries;
const hookIds = (body: { _embedded: { webhooks: { webhookId: string }[] } }) =>
  body._embedded.webhooks.map((w) => w.webhookId);

describe('kept webhook reads follow every change and never cross callers', () => {
  test('registered, an event queued, tried, retried, redelivered, deleted: each shows in the next read', async () => {
    let n = 0;
    const rx = await startReceiver((_i, res) => {
      res.statusCode = n++ === 0 ? 500 : 204;
      res.end();
    });
    try {
      assert.deepEqual(hookIds(await twice(LIST)), []);
      const hook = await register(rx.url);
      const DELIVERIES = `${hook.href}/deliveries`;
      assert.deepEqual(hookIds(await twice(LIST)), [hook.id]);
      assert.equal((await twice(hook.href)).pendingDeliveries, 0);
      assert.deepEqual(log(await twice(DELIVERIES)), []);

      // Others never get Carol's kept answers: not another user, her admin, or another tenant.
      assert.deepEqual(hookIds((await getJson(s, LIST, BOB)).body), []);
      for (const other of [BOB, ALICE, GRACE]) {
        assert.equal((await getJson(s, hook.href, other)).status, 404);
        assert.equal((await getJson(s, DELIVERIES, other)).status, 404);
      }

      await dnd(true);
      const tried = await eventually(
        DELIVERIES,
        (b) => log(b)[0]?.attempts.length === 1,
        'the first attempt in the log',
      );
      const [first] = log(tried);
      assert.equal(first.status, 'pending', 'the receiver answered 500: it waits for a retry');
      const ONE = first._links.self.href as string;
      assert.equal((await twice(ONE)).attempts.length, 1);
      assert.equal((await twice(hook.href)).pendingDeliveries, 1);
      assert.deepEqual(log(await twice(DELIVERIES)), log(tried));

      await simAdvance(s, 10_000);
      await eventually(DELIVERIES, (b) => log(b)[0].status === 'delivered', 'the retry delivered');
      assert.equal((await twice(ONE)).attempts.length, 2);
      assert.equal((await twice(hook.href)).pendingDeliveries, 0);

      const again = await getJson(s, `${ONE}/redeliver`, CAROL, { method: 'POST' });
      assert.equal(again.status, 202);
      const redelivered = await eventually(
        DELIVERIES,
        (b) => log(b)[1]?.status === 'delivered',
        'the redelivery delivered',
      );
      assert.deepEqual(log(await twice(DELIVERIES)), log(redelivered));

      assert.equal((await getJson(s, hook.href, CAROL, { method: 'DELETE' })).status, 200);
      assert.equal((await getJson(s, hook.href, CAROL)).status, 404);
      assert.equal((await getJson(s, DELIVERIES, CAROL)).status, 404);
      assert.deepEqual(hookIds(await twice(LIST)), []);
    } finally {
      await rx.close();
    }
  });

  test('a receiver that keeps failing: the webhook turns failing; a reset forgets it', async () => {
    const rx = await startReceiver((_i, res) => {
      res.statusCode = 503;
      res.end();
    });
    try {
      const hook = await register(rx.url);
      assert.equal((await twice(hook.href)).failing, false);
      await dnd(true);
      await eventually(hook.href, (b) => b.pendingDeliveries === 1, 'the event queued');
      // Past the retry window: the delivery is given up and the webhook marked failing.
      const DELIVERIES = `${hook.href}/deliveries`;
      for (let tries = 1; tries < 20; tries++) {
        const last = log((await getJson(s, DELIVERIES, CAROL)).body)[0];
        if (last.status === 'failed') break;
        await simAdvance(s, 20_000);
        await eventually(
          DELIVERIES,
          (b) => log(b)[0].attempts.length > tries || log(b)[0].status === 'failed',
          `try ${tries + 1}`,
        );
      }
      const read = await twice(hook.href);
      assert.equal(read.failing, true);
      assert.equal(read.pendingDeliveries, 0);
      assert.deepEqual(hookIds(await twice(LIST)), [hook.id]);

      await simReset(s);
      assert.deepEqual(hookIds((await getJson(s, LIST, CAROL)).body), [], 'the demo world has no webhooks');
      assert.equal((await getJson(s, hook.href, CAROL)).status, 404);
    } finally {
      await rx.close();
    }
  });
});
