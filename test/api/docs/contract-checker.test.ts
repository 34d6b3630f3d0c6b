import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ObservedResponse } from '../../../src/api/transport/traffic.js';
import { DELIVERY_EXAMPLE } from '../../../src/api/voice/webhooks/webhook-document.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

/**
 * The contract checker itself: answers that break the published documents in the ways the
 * checker must notice, fed to it directly, each must yield a violation; the valid ones none.
 */
describe('the contract checker', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s.stop();
  });

  const PROBLEM = 'application/problem+json';
  const HAL = 'application/hal+json';
  const problem = (status: number, errorCode: string) =>
    JSON.stringify({
      type: `urn:switchboard:problem:${errorCode}`,
      title: 'Error',
      status,
      detail: 'Something.',
      errorCode,
      parameters: [],
    });

  /** The violations one answer adds (they are removed again, so the server stops clean). */
  const check = (r: Partial<ObservedResponse> & Pick<ObservedResponse, 'method' | 'url' | 'status'>) => {
    const before = s.contract.violations.length;
    s.contract.response({ route: undefined, contentType: undefined, headers: {}, body: '', ...r });
    return s.contract.violations.splice(before);
  };

  it('an empty body where a body is documented, unless the response allows it', () => {
    const route = '/api/v1/calls/:callObserverId';
    const empty = check({ method: 'GET', url: '/api/v1/calls/1', route, status: 200 });
    assert.equal(empty.length, 1);
    assert.match(empty[0]!, /empty body, documented as application\/hal\+json/);
    // Call control answers no body for every request but hangupCall (spec).
    assert.deepEqual(check({ method: 'POST', url: '/api/v1/calls/1', route, status: 200 }), []);
  });

  it('a body whose content type the operation does not document', () => {
    const found = check({
      method: 'GET',
      url: '/api/v1/calls',
      route: '/api/v1/calls',
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: 'hello',
    });
    assert.equal(found.length, 1);
    assert.match(found[0]!, /content type text\/plain is not documented/);
    // Static pages under /api are in no document and are not checked.
    const page = check({
      method: 'GET',
      url: '/api/browser/browser.html',
      route: '/api/browser/*',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: '<html></html>',
    });
    assert.deepEqual(page, []);
  });

  it('a required header that is missing or malformed', () => {
    const created = {
      method: 'POST',
      url: '/api/v1/calls',
      route: '/api/v1/calls',
      status: 201,
      contentType: HAL,
      body: JSON.stringify({ callId: '1', smdrCallId: '2', _links: { self: { href: '/api/v1/calls/1' } } }),
    };
    const missing = check(created);
    assert.ok(
      missing.some((v) => /required header Location is missing/.test(v)),
      missing.join('\n'),
    );
    assert.deepEqual(
      check({ ...created, headers: { location: '/api/v1/calls/1' } }).filter((v) => /Location/.test(v)),
      [],
    );
    const busy = { method: 'GET', url: '/api/v1', route: '/api/v1', status: 503, contentType: PROBLEM };
    const noRetry = check({ ...busy, body: problem(503, 'BUSY') });
    assert.equal(noRetry.length, 1);
    assert.match(noRetry[0]!, /required header Retry-After is missing/);
    assert.deepEqual(check({ ...busy, body: problem(503, 'BUSY'), headers: { 'retry-after': '3' } }), []);
    const bad = check({ ...busy, body: problem(503, 'BUSY'), headers: { 'retry-after': 'soon' } });
    assert.equal(bad.length, 1);
    assert.match(bad[0]!, /header Retry-After "soon"/);
  });

  it('no-route answers are checked against the NotFound answer of the prefix’s document', () => {
    const voice = { method: 'GET', url: '/api/v1/nosuch', status: 404, contentType: PROBLEM };
    assert.deepEqual(check({ ...voice, body: problem(404, 'NOT_FOUND') }), []);
    assert.equal(check({ ...voice, body: problem(404, 'CALL_NOT_FOUND') }).length, 1);
    assert.equal(check({ ...voice, contentType: 'application/json', body: '{}' }).length, 1);
    const cc = { method: 'DELETE', url: '/6/v2/api/calls', status: 404, contentType: 'application/json' };
    assert.deepEqual(check({ ...cc, body: JSON.stringify({ success: false, reason: 'Not Found' }) }), []);
    assert.equal(check({ ...cc, body: JSON.stringify({ success: true, reason: 'Not Found' }) }).length, 1);
    const sim = { method: 'GET', url: '/sim/v1/nosuch', status: 404, contentType: 'application/json' };
    const simBody = (code: string) => JSON.stringify({ error: { code, message: 'No.' } });
    assert.deepEqual(check({ ...sim, body: simBody('NOT_FOUND') }), []);
    assert.equal(check({ ...sim, body: simBody('DEVICE_NOT_FOUND') }).length, 1);
    // Other statuses before the not-found handler (401 of the voice auth hook) match some operation's.
    const unauthorized = { method: 'GET', url: '/api/v1/nosuch', status: 401, contentType: PROBLEM };
    assert.deepEqual(check({ ...unauthorized, body: problem(401, 'UNAUTHORIZED') }), []);
    assert.equal(check({ ...unauthorized, body: '{"error":"Unauthorized"}' }).length, 1);
    // Outside the API prefixes nothing is checked.
    assert.deepEqual(check({ method: 'GET', url: '/apix', status: 404, body: 'x' }), []);
  });

  it('a webhook delivery whose body or headers break the deliveries document', () => {
    const { payload: body, headers } = DELIVERY_EXAMPLE;
    const deliver = (b: unknown, h?: Record<string, string>) => {
      const before = s.contract.violations.length;
      s.contract.frame('voice-webhooks', JSON.stringify(b), h);
      return s.contract.violations.splice(before);
    };
    assert.deepEqual(deliver(body, headers), []);
    const { sequence: _s, ...unsequenced } = body;
    assert.match(deliver(unsequenced, headers).join(), /matches no message/);
    assert.match(
      deliver({ ...body, subscriptionSetId: body.webhookId }, headers).join(),
      /matches no message/,
    );
    const signed = deliver(body, { ...headers, 'webhook-signature': 'sha256=abc' });
    assert.equal(signed.length, 1);
    assert.match(signed[0]!, /headers of presenceDelivery do not match/);
    assert.match(deliver(body).join(), /none sent/);
  });

  it('real no-route answers of the three APIs pass', async () => {
    for (const url of ['/api/v1/nosuch', '/6/v2/api/nosuch', '/sim/v1/nosuch']) {
      const res = await s.fetch(url, { auth: 'admin:admin' });
      assert.equal(res.status, 404, url);
      await res.text();
    }
    assert.deepEqual(s.contract.violations, []);
  });

  it('empty answers reach the checker too', async () => {
    const seen: ObservedResponse[] = [];
    const check = s.contract.response.bind(s.contract);
    s.contract.response = (r) => {
      seen.push(r);
      check(r);
    };
    try {
      const res = await s.fetch('/sim/v1/reset', { method: 'POST', auth: 'admin:admin' });
      assert.equal(res.status, 204);
    } finally {
      s.contract.response = check;
    }
    assert.deepEqual(
      seen.map((r) => [r.method, r.route, r.status, r.body]),
      [['POST', '/sim/v1/reset', 204, '']],
    );
  });
});
