import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  SwitchboardError,
  VoiceApiError,
  VoiceClient,
  type VoiceClientOptions,
} from '../../../packages/client/src/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { simAnswer } from '../voice/voice-helpers.js';

let s: TestServer;
before(async () => {
  s = await startTestServer();
});
after(() => s.stop());

/** A fetch that records what the client asked for and every address the server offered. */
function recordingFetch() {
  const requests: { method: string; path: string }[] = [];
  const offered = new Set<string>(['/api']);
  const impl: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    requests.push({ method: init?.method ?? 'GET', path: url.pathname + url.search });
    const res = await fetch(input, init);
    const location = res.headers.get('location');
    if (location) offered.add(location);
    const text = await res.clone().text();
    if (text.startsWith('{')) {
      JSON.stringify(JSON.parse(text), (key, value) => {
        if (key === 'href' && typeof value === 'string') offered.add(value);
        return value;
      });
    }
    return res;
  };
  /** Whether `path` is an address the server offered, or an expansion of a template it offered. */
  const wasOffered = (path: string) =>
    [...offered].some((href) => {
      const pattern = href
        .replace(/[.*+^$()|[\]\\]/g, '\\$&')
        .replace(/\\?\{\?[^}]*\}/g, '(\\?.*)?')
        .replace(/\{[^}]*\}/g, '[^/?]+');
      return new RegExp(`^${pattern}$`).test(path);
    });
  return { impl, requests, wasOffered };
}

function voice(username: string, extra: Partial<VoiceClientOptions> = {}) {
  return new VoiceClient({ url: s.httpUrl, username, password: '1234', ...extra });
}

describe('voice REST through the client', () => {
  test('starts at /api and reaches every resource through links and templates', async () => {
    const rec = recordingFetch();
    const alice = voice('100@1001', { http: { fetch: rec.impl } });
    const bob = voice('101@1001');
    const root = await alice.root();
    assert.deepEqual(root, { tenantId: 1001, tenantName: 'Acme Corp' });
    const agents = await alice.extensions({ extensionType: 'userExt', agent: true });
    assert.deepEqual(
      agents.map((e) => e.extension),
      ['101', '102', '103', '104'],
    );
    const placed = await bob.calls.make({ from: '101@1001', to: '102' });
    assert.match(placed.callId, /^\d+$/);
    assert.equal(new URL(placed.href, s.httpUrl).pathname.endsWith(placed.callId), true);
    // Alice (tenant admin) reads Bob's leg through the dictionary's v1:call template.
    const call = await alice.calls.get(placed.callId);
    assert.equal(call.from, '101');
    assert.equal(call.to, '102');
    assert.equal(call.answerTime, null);
    assert.equal(typeof call.redirected, 'boolean');
    const presence = await alice.status.tenantPresence();
    assert.equal(presence.find((p) => p.accountId === '101@1001')?.callActivity, 'busy');
    assert.equal((await alice.status.presence('104')).callActivity, 'idle');
    assert.equal((await alice.status.parkLocations()).length, 5);
    await bob.calls.hangup(placed.callId);

    assert.equal(rec.requests[0]!.path, '/api');
    for (const r of rec.requests)
      assert.ok(rec.wasOffered(r.path), `${r.method} ${r.path} came from no link`);
    assert.ok(rec.requests.some((r) => r.path === '/api/v1/uridictionary'));
    assert.ok(rec.requests.some((r) => r.path === `/api/v1/calls/${placed.callId}`));
    // Navigation documents are read once per client.
    assert.equal(rec.requests.filter((r) => r.path === '/api/v1').length, 1);
  });

  test('a user without the dictionary reaches their calls through the list’s links', async () => {
    const rec = recordingFetch();
    const carol = voice('102@1001', { http: { fetch: rec.impl } });
    const bob = voice('101@1001');
    await bob.calls.make({ from: '101@1001', to: '102' });
    const [leg] = await carol.calls.list();
    assert.ok(leg);
    const call = await carol.calls.get(leg.callId);
    assert.equal(call.from, '101');
    assert.equal(call.smdrCallId, leg.smdrCallId);
    assert.deepEqual(call.callParties.map((p) => p.PartyId).sort(), ['101@1001', '102@1001']);
    await carol.calls.deflect(leg.callId, '102@1001').catch(() => {});
    for (const c of await bob.calls.list()) await bob.calls.hangup(c.callId);
    for (const r of rec.requests)
      assert.ok(rec.wasOffered(r.path), `${r.method} ${r.path} came from no link`);
    assert.ok(!rec.requests.some((r) => r.path.includes('uridictionary')));
  });

  test('problem documents become typed VoiceApiErrors', async () => {
    const bob = voice('101@1001');
    const carol = voice('102@1001');

    const missing = await bob.calls.make({ from: '101@1001' } as never).catch((e: unknown) => e);
    assert.ok(missing instanceof VoiceApiError, String(missing));
    assert.equal(missing.status, 400);
    assert.equal(missing.errorCode, 'MISSING_FIELD');
    assert.equal(missing.parameter('field'), 'to');
    assert.equal(missing.type, 'urn:switchboard:problem:MISSING_FIELD');

    const badFilter = await voice('100@1001')
      .follow('v1:extensions', { filter: 'gt(name,a)' })
      .catch((e: unknown) => e);
    assert.ok(badFilter instanceof VoiceApiError);
    assert.equal(badFilter.status, 400);
    assert.equal(badFilter.errorCode, 'INVALID_FILTER');
    assert.deepEqual(badFilter.parameters, [{ type: 'filterCondition', value: 'gt(name,a)' }]);

    const placed = await bob.calls.make({ from: '101@1001', to: '102' });
    const [carolLeg] = await carol.calls.list();
    await simAnswer(s, 'ph1001-102');
    const notRinging = await carol.calls.answer(carolLeg!.callId, '102@1001').catch((e: unknown) => e);
    assert.ok(notRinging instanceof VoiceApiError);
    assert.equal(notRinging.status, 409);
    assert.equal(notRinging.errorCode, 'CALL_NOT_RINGING');
    const hung = await bob.calls.hangup(placed.callId);
    assert.equal(hung.callState, 'ended');
    const ended = await bob.calls.hangup(placed.callId).catch((e: unknown) => e);
    assert.ok(ended instanceof VoiceApiError);
    assert.equal(ended.errorCode, 'CALL_ENDED');

    const wrong = await new VoiceClient({ url: s.httpUrl, username: '104@1001', password: '0000' })
      .root()
      .catch((e: unknown) => e);
    assert.ok(wrong instanceof VoiceApiError);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.errorCode, 'UNAUTHORIZED');

    // A user may read only their own presence: the client says so instead of answering another's.
    const other = await bob.status.presence('102').catch((e: unknown) => e);
    assert.ok(other instanceof SwitchboardError);
    assert.match(other.message, /own presence/);
    assert.equal((await bob.status.presence()).accountId, '101@1001');
  });
});
