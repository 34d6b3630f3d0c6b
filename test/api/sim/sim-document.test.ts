import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
before(async () => {
  server = await startTestServer();
});
after(async () => {
  await server.stop();
});

type Doc = {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, unknown> };
};

/** The simulator's contract (docs/decisions.md §1.9; every operation in docs/simulator.md). */
const SIM_CONTRACT = [
  'POST /sim/v1/reset',
  'GET /sim/v1/state',
  'POST /sim/v1/pstn/calls',
  'POST /sim/v1/pstn/calls/{pstnCallId}/answer',
  'POST /sim/v1/pstn/calls/{pstnCallId}/hangup',
  'POST /sim/v1/pstn/calls/{pstnCallId}/digits',
  'GET /sim/v1/pstn/calls',
  'PUT /sim/v1/pstn/numbers/{number}',
  'POST /sim/v1/devices/{deviceId}/answer',
  'POST /sim/v1/devices/{deviceId}/hangup',
  'POST /sim/v1/devices/{deviceId}/dial',
  'POST /sim/v1/devices/{deviceId}/register',
  'POST /sim/v1/devices/{deviceId}/unregister',
  'POST /sim/v1/tenants/{tenantId}/messages',
  'GET /sim/v1/clock',
  'POST /sim/v1/clock/advance',
];

describe('the simulator OpenAPI document', () => {
  test('describes every operation of the simulator’s contract, with the shared refusals', async () => {
    const doc = (await (await server.fetch('/openapi/simulator.json')).json()) as Doc;
    const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const op of SIM_CONTRACT) assert.ok(ops.includes(op), `${op} is documented`);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const status of ['401', '403', '4XX']) {
          assert.ok(op.responses[status], `${method} ${path} documents ${status}`);
        }
      }
    }
    for (const name of Object.keys(doc.components.schemas)) assert.match(name, /^Sim/);
  });
});

describe('requests are checked against the documented schemas', () => {
  const send = async (method: string, path: string, json?: unknown) => {
    const res = await server.fetch(`/sim/v1${path}`, { method, auth: 'admin:admin', json });
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  };
  const cases: [string, string, unknown, string][] = [
    ['POST', '/clock/advance', {}, 'MISSING_MS'],
    ['POST', '/clock/advance', { ms: 1.5 }, 'INVALID_MS'],
    ['POST', '/clock/advance', 'soon', 'INVALID_BODY'],
    [
      'POST',
      '/tenants/acme/messages',
      { direction: 'in', kind: 'sms', from: '12', to: '34' },
      'INVALID_TENANT_ID',
    ],
    ['POST', '/tenants/1001/messages', { kind: 'sms', from: '12', to: '34' }, 'MISSING_DIRECTION'],
    ['POST', '/tenants/1001/messages', { direction: 'in', kind: 'sms', from: 'x', to: '34' }, 'INVALID_FROM'],
    ['POST', '/devices/ph1001-101/answer', { callObserverId: 5 }, 'INVALID_CALL_OBSERVER_ID'],
    ['POST', '/devices/ph1001-101/digits', { digits: '1'.repeat(33) }, 'INVALID_DIGITS'],
    ['POST', '/devices/ph1001-101/digits', {}, 'MISSING_DIGITS'],
    [
      'POST',
      '/pstn/calls',
      { from: '+15559871234', to: '+15555550100', callerName: 7 },
      'INVALID_CALLER_NAME',
    ],
    ['PUT', '/pstn/numbers/abc', { answer: 'auto' }, 'INVALID_NUMBER'],
    ['PUT', '/pstn/numbers/5550001111', { answer: 'auto', busy: 'yes' }, 'INVALID_BUSY'],
    ['PUT', '/pstn/numbers/5550001111', {}, 'MISSING_ANSWER'],
  ];
  for (const [method, path, json, code] of cases) {
    test(`${method} ${path} ${JSON.stringify(json)}: 400 ${code}`, async () => {
      const r = await send(method, path, json);
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.error.code, code);
      assert.ok(r.body.error.message.length > 0);
    });
  }
});
