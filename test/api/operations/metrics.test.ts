import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { describe, test } from 'node:test';
import { basic, suiteServer, type TestServer } from '../../helpers/server.js';
import { ADMIN, BOB, CAROL, getJson, openSocket } from '../voice/voice-helpers.js';

/** The value of one series (`name{labels}`) in a scrape; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(s: TestServer, auth?: string): Promise<string> {
  const r = await s.fetch('/metrics', auth ? { auth } : {});
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return r.text();
}

const CALLS_200 = 'switchboard_http_requests_total{method="GET",route="/api/v1/calls",status="200"}';
const CALLS_LATENCY =
  'switchboard_http_request_duration_seconds_count{method="GET",route="/api/v1/calls",status="200"}';

describe('GET /metrics', () => {
  const current = suiteServer();

  test('names every documented series, process metrics included', async () => {
    const text = await scrape(current());
    for (const name of [
      'switchboard_http_requests_total',
      'switchboard_http_request_duration_seconds',
      'switchboard_http_requests_in_flight',
      'switchboard_http_busy_total',
      'switchboard_websockets_open',
      'switchboard_voice_subscription_sets',
      'switchboard_live_calls',
      'switchboard_acd_waiting_calls',
      'switchboard_tenant_queue_pending',
      'switchboard_events_sent_total',
      'switchboard_lockouts_total',
      'process_cpu_user_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      assert.match(text, new RegExp(`^# TYPE ${name} `, 'm'), name);
    }
  });

  test('request counts and latencies move by route and status; a client’s path never becomes a label', async () => {
    const s = current();
    const before = await scrape(s);
    for (let i = 0; i < 3; i++) assert.equal((await s.fetch('/api/v1/calls', { auth: BOB })).status, 200);
    assert.equal((await s.fetch('/no/such/secret-path')).status, 404);
    const after = await scrape(s);
    assert.equal((sample(after, CALLS_200) ?? 0) - (sample(before, CALLS_200) ?? 0), 3);
    assert.equal((sample(after, CALLS_LATENCY) ?? 0) - (sample(before, CALLS_LATENCY) ?? 0), 3);
    assert.ok(
      (sample(after, 'switchboard_http_requests_total{method="GET",route="unmatched",status="404"}') ?? 0) >=
        1,
    );
    assert.doesNotMatch(after, /secret-path/);
    // Buckets are cumulative and end with the count.
    const inf = sample(
      after,
      'switchboard_http_request_duration_seconds_bucket{method="GET",route="/api/v1/calls",status="200",le="+Inf"}',
    );
    assert.equal(inf, sample(after, CALLS_LATENCY));
  });

  test('sockets, subscription sets, live calls, events and lock-outs are what the server holds', async () => {
    const s = current();
    const sock = await openSocket(s, CAROL);
    try {
      const set = await getJson(s, `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, CAROL, {
        method: 'POST',
      });
      assert.equal(set.status, 200);
      const subscribed = await getJson(s, set.body._links['v1:callEventSubscriptions'].href, CAROL, {
        method: 'PUT',
        json: { eventAccounts: ['102@1001'] },
      });
      assert.ok(subscribed.status < 300, JSON.stringify(subscribed.body));
      const before = await scrape(s);
      assert.equal(sample(before, 'switchboard_websockets_open{api="voice"}'), 1);
      assert.equal(sample(before, 'switchboard_voice_subscription_sets'), 1);

      const made = await getJson(s, '/api/v1/calls', BOB, {
        method: 'POST',
        json: { from: '101@1001', to: '102' },
      });
      assert.equal(made.status, 201);
      await sock.waitFor(1);
      for (let i = 0; i < 3; i++) await s.fetch('/api/v1/calls', { auth: '103@1001:9999' });

      const after = await scrape(s);
      assert.equal(sample(after, 'switchboard_live_calls{tenant="1001"}'), 1);
      assert.ok(
        (sample(after, 'switchboard_events_sent_total{api="voice"}') ?? 0) >
          (sample(before, 'switchboard_events_sent_total{api="voice"}') ?? 0),
      );
      assert.equal(
        (sample(after, 'switchboard_lockouts_total') ?? 0) -
          (sample(before, 'switchboard_lockouts_total') ?? 0),
        1,
      );
    } finally {
      await sock.close();
    }
    await new Promise((r) => setTimeout(r, 50));
    const closed = await scrape(s);
    assert.equal(sample(closed, 'switchboard_websockets_open{api="voice"}'), 0);
    assert.equal(sample(closed, 'switchboard_voice_subscription_sets'), 0);
  });
});

describe('GET /metrics with --metrics-auth', () => {
  const current = suiteServer({ metricsAuth: true });

  test('needs Basic credentials of a telco administrator', async () => {
    const s = current();
    const anonymous = await s.fetch('/metrics');
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /^Basic /);
    assert.equal((await s.fetch('/metrics', { auth: BOB })).status, 401, 'a tenant user may not');
    assert.equal((await s.fetch('/metrics', { auth: 'admin:wrong' })).status, 401);
    assert.match(await scrape(s, ADMIN), /switchboard_http_requests_total/);
  });
});

describe('GET /metrics while a client is at its limit', () => {
  const current = suiteServer({ limitPerClient: 1, busyDelayMs: 0 });

  test('the request in flight and the 503 it causes are counted', async () => {
    const s = current();
    const before = await scrape(s);
    // A POST whose body never comes holds BOB's one slot.
    const { port } = new URL(s.httpUrl);
    const held = connect(Number(port), '127.0.0.1');
    await new Promise((r) => held.once('connect', r));
    held.write(
      'POST /api/v1/calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Authorization: ${basic(BOB)}\r\nContent-Length: 100\r\n\r\n{`,
    );
    try {
      let during = '';
      for (let i = 0; i < 50; i++) {
        during = await scrape(s);
        if (sample(during, 'switchboard_http_requests_in_flight') === 1) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(sample(during, 'switchboard_http_requests_in_flight'), 1);
      const busy = await s.fetch('/api/v1/calls', { auth: BOB });
      await busy.arrayBuffer();
      assert.equal(busy.status, 503);
      const after = await scrape(s);
      assert.equal(
        (sample(after, 'switchboard_http_busy_total') ?? 0) -
          (sample(before, 'switchboard_http_busy_total') ?? 0),
        1,
      );
    } finally {
      held.destroy();
    }
  });
});
