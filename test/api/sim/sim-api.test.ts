import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LegView, PstnCallView, SimState } from '../../../src/switch/types.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ADMIN = 'admin:admin';
let server: TestServer;

async function sim(path: string, init: RequestInit & { json?: unknown; auth?: string } = {}) {
  const res = await server.fetch(`/sim/v1${path}`, { auth: ADMIN, ...init });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
const post = (path: string, json?: unknown) => sim(path, { method: 'POST', json });

async function expectError(
  p: Promise<{ status: number; body: { error?: { code: string } } }>,
  status: number,
  code: string,
) {
  const r = await p;
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body?.error?.code, code);
}

before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.stop();
});

describe('simulator authentication', () => {
  test('no credentials: 401 with WWW-Authenticate', async () => {
    const r = await sim('/clock', { auth: undefined });
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Basic /);
    assert.equal(r.body.error.code, 'UNAUTHORIZED');
  });

  test('a wrong password: 401', async () => {
    await expectError(sim('/clock', { auth: 'admin:nope' }), 401, 'UNAUTHORIZED');
  });

  test('a scoped telco user or a tenant user: 403', async () => {
    await expectError(sim('/clock', { auth: 'operator:operator' }), 403, 'FORBIDDEN');
    await expectError(sim('/clock', { auth: '100@1001:1234' }), 403, 'FORBIDDEN');
  });
});

describe('clock', () => {
  test('reads and advances the virtual clock', async () => {
    const before = await sim('/clock');
    assert.equal(before.status, 200);
    assert.equal(before.body.mode, 'virtual');
    const r = await post('/clock/advance', { ms: 1500 });
    assert.equal(r.status, 200);
    assert.equal(r.body.now, before.body.now + 1500);
    await expectError(post('/clock/advance', { ms: -1 }), 400, 'INVALID_MS');
    await expectError(post('/clock/advance', { ms: '5' }), 400, 'INVALID_MS');
    await expectError(post('/clock/advance'), 400, 'INVALID_BODY');
    await expectError(
      sim('/clock/advance', {
        method: 'POST',
        body: '{nope',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'INVALID_BODY',
    );
  });

  test('advance is refused on the real clock', async () => {
    const real = await startTestServer({ clock: 'real' });
    try {
      const res = await real.fetch('/sim/v1/clock/advance', {
        method: 'POST',
        auth: ADMIN,
        json: { ms: 10 },
      });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'CLOCK_NOT_VIRTUAL');
    } finally {
      await real.stop();
    }
  });
});

describe('phones', () => {
  test('dial, answer, hang up, with their errors', async () => {
    await post('/reset');
    const dial = await post('/devices/ph1001-101/dial', { to: '102' });
    assert.equal(dial.status, 201);
    const caller: LegView = dial.body.call;
    assert.equal(caller.state, 'ringback');
    await expectError(post('/devices/ph1001-105/answer'), 409, 'CALL_NOT_RINGING');
    await expectError(post('/devices/nope/answer'), 404, 'DEVICE_NOT_FOUND');
    await expectError(
      post('/devices/ph1001-102/answer', { callObserverId: 'x' }),
      400,
      'INVALID_CALL_OBSERVER_ID',
    );
    await expectError(post('/devices/ph1001-102/answer', { callObserverId: '1' }), 404, 'CALL_NOT_FOUND');
    const answer = await post('/devices/ph1001-102/answer');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.call.state, 'connected');
    assert.equal(answer.body.call.smdrCallId, caller.smdrCallId);
    const device = await sim('/devices/ph1001-102');
    assert.deepEqual(device.body.calls, [answer.body.call.callObserverId]);
    assert.equal((await post('/devices/ph1001-102/hangup')).status, 204);
    await expectError(post('/devices/ph1001-102/hangup'), 409, 'NO_ACTIVE_CALL');
    await expectError(post('/devices/ph1001-101/dial'), 400, 'INVALID_BODY');
    await expectError(post('/devices/ph1001-101/dial', { to: 5 }), 400, 'INVALID_TO');
    await expectError(post('/devices/ph1001-101/dial', { to: 'abc' }), 400, 'INVALID_NUMBER');
    await expectError(post('/devices/ph1001-101/digits', { digits: 'x' }), 400, 'INVALID_DIGITS');
    await expectError(post('/devices/ph1001-101/digits', { digits: '1' }), 409, 'NO_ACTIVE_CALL');
  });

  test('register and unregister', async () => {
    await post('/reset');
    const r = await post('/devices/ph1001-103/unregister');
    assert.deepEqual(r.body, { deviceId: 'ph1001-103', registered: false });
    let state: SimState = (await sim('/state')).body;
    assert.equal(state.devices.find((d) => d.deviceId === 'ph1001-103')?.registered, false);
    await expectError(post('/devices/ph1001-103/dial', { to: '102' }), 409, 'DEVICE_NOT_REGISTERED');
    assert.equal((await post('/devices/ph1001-103/register')).status, 200);
    state = (await sim('/state')).body;
    assert.equal(state.devices.find((d) => d.deviceId === 'ph1001-103')?.registered, true);
    await expectError(post('/devices/nope/register'), 404, 'DEVICE_NOT_FOUND');
  });
});

describe('the public network', () => {
  test('an outside caller through the auto attendant into a queue', async () => {
    await post('/reset');
    const created = await post('/pstn/calls', {
      from: '+15559871234',
      to: '+15555550100',
      callerName: 'Pat',
    });
    assert.equal(created.status, 201);
    const id: string = created.body.pstnCallId;
    assert.equal(created.headers.get('location'), `/sim/v1/pstn/calls/${id}`);
    const one = await sim(`/pstn/calls/${id}`);
    assert.equal((one.body as PstnCallView).state, 'connected');
    assert.equal(one.body.direction, 'inbound');
    assert.equal((await post(`/pstn/calls/${id}/digits`, { digits: '2' })).status, 204);
    const state: SimState = (await sim('/state')).body;
    const support = state.queues.find((q) => q.tenantId === 1001 && q.acdExt === '501')!;
    assert.equal(support.calls.length, 1);
    assert.equal(support.calls[0].from, '+15559871234');
    assert.equal(support.calls[0].callerName, 'Pat');
    await expectError(post(`/pstn/calls/${id}/answer`), 409, 'CALL_NOT_RINGING');
    await expectError(post(`/pstn/calls/${id}/digits`, { digits: 'abc' }), 400, 'INVALID_DIGITS');
    assert.equal((await post(`/pstn/calls/${id}/hangup`)).status, 204);
    assert.deepEqual((await sim('/pstn/calls')).body, { calls: [] });
    await expectError(sim(`/pstn/calls/${id}`), 404, 'PSTN_CALL_NOT_FOUND');
    await expectError(post(`/pstn/calls/${id}/hangup`), 404, 'PSTN_CALL_NOT_FOUND');
  });

  test('bad outside calls', async () => {
    await expectError(
      post('/pstn/calls', { from: '+15559871234', to: '+15550000000' }),
      404,
      'NUMBER_NOT_FOUND',
    );
    await expectError(post('/pstn/calls', { from: 'me', to: '+15555550100' }), 400, 'INVALID_NUMBER');
    await expectError(post('/pstn/calls', { to: '+15555550100' }), 400, 'MISSING_FROM');
    await expectError(post('/pstn/calls', ['x']), 400, 'INVALID_BODY');
  });

  test('an outside number set to manual answer rings until answered', async () => {
    await post('/reset');
    const put = await sim('/pstn/numbers/5550001111', { method: 'PUT', json: { answer: 'manual' } });
    assert.equal(put.status, 200);
    assert.deepEqual(put.body, { number: '+15550001111', answer: 'manual' });
    await expectError(
      sim('/pstn/numbers/5550001111', { method: 'PUT', json: { answer: 'later' } }),
      400,
      'INVALID_ANSWER',
    );
    await expectError(
      sim('/pstn/numbers/5550001111', { method: 'PUT', json: { answer: 'auto', answerAfterMs: -5 } }),
      400,
      'INVALID_ANSWER_AFTER_MS',
    );
    assert.deepEqual((await sim('/pstn/numbers')).body.numbers, [
      { number: '+15550001111', answer: 'manual' },
    ]);
    await post('/devices/ph1001-101/dial', { to: '95550001111' });
    await post('/clock/advance', { ms: 60_000 });
    const [out]: PstnCallView[] = (await sim('/pstn/calls')).body.calls;
    assert.equal(out.state, 'ringing');
    assert.equal(out.direction, 'outbound');
    assert.equal(out.to, '+15550001111');
    assert.equal((await post(`/pstn/calls/${out.pstnCallId}/answer`)).status, 204);
    assert.equal((await sim(`/pstn/calls/${out.pstnCallId}`)).body.state, 'connected');
  });
});

describe('state, messages and reset', () => {
  test('the state snapshot', async () => {
    await post('/reset');
    const r = await sim('/state');
    assert.equal(r.status, 200);
    const s: SimState & { clock: { mode: string } } = r.body;
    assert.equal(s.clock.mode, 'virtual');
    assert.ok(s.devices.some((d) => d.deviceId === 'ph1001-104' && d.model === 'bst' && d.registered));
    assert.equal(s.parkLocations.filter((p) => p.tenantId === 1001).length, 5);
    assert.deepEqual(
      s.queues.filter((q) => q.tenantId === 1001).map((q) => q.acdExt),
      ['500', '501'],
    );
    assert.deepEqual(s.calls, []);
  });

  test('text messages are counted through the contact center', async () => {
    const counted: unknown[] = [];
    const cc = server.runtime.contactCenter as { countTextMessage?: (...a: unknown[]) => Promise<void> };
    const original = cc.countTextMessage;
    cc.countTextMessage = async (...a: unknown[]) => {
      counted.push(a);
    };
    try {
      const ok = await post('/tenants/1001/messages', {
        direction: 'in',
        kind: 'sms',
        from: '+15559871234',
        to: '+15555550100',
      });
      assert.equal(ok.status, 204);
      assert.deepEqual(counted, [[1001, 'in', 'sms']]);
      // One refusal per rule of the message body, each with its own code.
      await expectError(
        post('/tenants/1001/messages', { direction: 'up', kind: 'sms', from: '1', to: '2' }),
        400,
        'INVALID_DIRECTION',
      );
      await expectError(
        post('/tenants/1001/messages', { direction: 'in', kind: 'fax', from: '12', to: '34' }),
        400,
        'INVALID_KIND',
      );
      await expectError(
        post('/tenants/1001/messages', { direction: 'in', kind: 'mms', to: '34' }),
        400,
        'MISSING_FROM',
      );
      await expectError(
        post('/tenants/9999/messages', { direction: 'in', kind: 'sms', from: '12', to: '34' }),
        404,
        'TENANT_NOT_FOUND',
      );
      assert.equal(counted.length, 1);
    } finally {
      cc.countTextMessage = original;
    }
  });

  test('reset ends every call and puts the clock back', async () => {
    const start = (await sim('/clock')).body.now;
    await post('/devices/ph1001-101/dial', { to: '102' });
    await post('/clock/advance', { ms: 5000 });
    assert.equal((await sim('/state')).body.calls.length, 1);
    assert.equal((await post('/reset')).status, 204);
    const s = (await sim('/state')).body;
    assert.deepEqual(s.calls, []);
    assert.ok(s.clock.now <= start);
  });

  test('an ended call leaves a durable record', async () => {
    await post('/reset');
    const dial = await post('/devices/ph1001-101/dial', { to: '102' });
    await post('/devices/ph1001-102/answer');
    await post('/clock/advance', { ms: 4000 });
    await post('/devices/ph1001-101/hangup');
    const smdrCallId: string = dial.body.call.smdrCallId;
    let record = await server.runtime.callRecords.get(1001, smdrCallId);
    for (let i = 0; !record && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      record = await server.runtime.callRecords.get(1001, smdrCallId);
    }
    assert.ok(record, 'the record was written');
    assert.equal(record.outcome, 'Answered');
    assert.equal(record.from, '101');
    assert.equal(record.to, '102');
    assert.equal(record.endedAt - (record.answeredAt ?? 0), 4000);
  });

  test('unknown simulator paths answer 404 in JSON', async () => {
    await expectError(sim('/nothing'), 404, 'NOT_FOUND');
  });
});
