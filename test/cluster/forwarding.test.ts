import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basic } from '../helpers/server.js';
import { type ClusterNode, clusterSkip, startCluster, type TestCluster } from '../helpers/cluster-nodes.js';
import { ALICE, BOB, GRACE } from '../api/voice/voice-helpers.js';
import { DEMO } from '../../src/directory/demo-ids.js';

/**
 * Forwarding over real sockets (docs/cluster.md § Forwarding): node a owns tenant 1001, node b
 * tenant 1002, both on one PostgreSQL schema and the real NATS server.
 */
const skip = await clusterSkip();

/** The connection's own headers, which two servers never share. */
const CONNECTION_HEADERS = new Set(['date', 'connection', 'keep-alive']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function ask(
  node: ClusterNode,
  path: string,
  init: RequestInit & { auth?: string } = {},
): Promise<Answer> {
  const headers = new Headers(init.headers);
  if (init.auth) headers.set('authorization', basic(init.auth));
  const res = await fetch(node.httpUrl + path, { ...init, headers });
  const kept: Record<string, string> = {};
  res.headers.forEach((v, k) => {
    if (!CONNECTION_HEADERS.has(k)) kept[k] = v;
  });
  return { status: res.status, headers: kept, body: await res.text() };
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('forwarding to the tenant’s owner', { skip }, () => {
  let cluster: TestCluster;
  let a: ClusterNode;
  let b: ClusterNode;
  before(async () => {
    cluster = await startCluster(['a', 'b'], { 1001: 'a', 1002: 'b' });
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  test('a call made on the node that does not own the tenant is live on its owner', async () => {
    const made = await ask(b, '/api/v1/calls', { auth: BOB, ...json({ from: '101@1001', to: '102' }) });
    assert.equal(made.status, 201, made.body);
    const callId = JSON.parse(made.body).callId as string;
    assert.equal(made.headers.location, `/api/v1/calls/${callId}`);
    assert.ok(a.runtime.switch.leg(callId), 'the owner holds the call');
    assert.equal(b.runtime.switch.leg(callId), undefined, 'the forwarding node holds no live state');
    const onA = await ask(a, `/api/v1/calls/${callId}`, { auth: BOB, headers: { 'x-request-id': 'same-1' } });
    const onB = await ask(b, `/api/v1/calls/${callId}`, { auth: BOB, headers: { 'x-request-id': 'same-1' } });
    assert.equal(onA.status, 200);
    assert.deepEqual(onB, onA);
    await ask(a, `/api/v1/calls/${callId}`, { auth: BOB, ...json({ callRequest: 'hangupCall' }) });
  });

  test('answers are byte-identical to the owner’s own: success, refusals, HEAD', async () => {
    const cases: [string, RequestInit & { auth?: string }][] = [
      ['/api/v1/calls', { auth: BOB }],
      ['/api/v1/calls', { auth: BOB, method: 'HEAD' }],
      ['/api/v1/calls?filter=nonsense', { auth: BOB }],
      ['/api/v1/calls', { auth: BOB, ...json({ from: '102@1001', to: '103' }) }],
      ['/api/v1/calls', { auth: BOB, ...json({ to: '103' }) }],
      ['/api/v1/calls/123', { auth: BOB }],
      // Bytes the parser refuses, and a body the schema refuses, are refused alike.
      [
        '/api/v1/calls',
        { auth: BOB, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"from":' },
      ],
      ['/api/v1/calls', { auth: BOB, method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' }],
      ['/api/v1/tenants/1001/users/101', { auth: ALICE }],
      ['/api/v1/tenants/1002/users/201', { auth: GRACE }],
      ['/api/v1/presencestatus/tenants/1001/extensions', { auth: ALICE }],
      ['/sim/v1/devices/ph1001-101', { auth: 'admin:admin' }],
      ['/sim/v1/devices/ph1002-201', { auth: 'admin:admin' }],
    ];
    for (const [path, init] of cases) {
      const headers = { ...(init.headers as Record<string, string>), 'x-request-id': 'compare' };
      const onA = await ask(a, path, { ...init, headers });
      const onB = await ask(b, path, { ...init, headers });
      assert.deepEqual(onB, onA, `${init.method ?? 'GET'} ${path}`);
    }
  });

  test('the contact-center API is forwarded too', async () => {
    const token = async (node: ClusterNode, username: string) => {
      const r = await ask(
        node,
        '/6/v2/api/oauth/token',
        json({ grant_type: 'password', username, password: '1234' }),
      );
      return `Bearer ${JSON.parse(r.body).access_token as string}`;
    };
    const agent = await token(b, '101@1001');
    const shift = await ask(b, '/6/v2/api/agent_state', {
      ...json({ request: 'updateAgentState', name: 'end of shift' }),
      headers: { 'content-type': 'application/json', authorization: agent },
    });
    assert.equal(shift.status, 200, shift.body);
    const admin = await token(a, '100@1001');
    const path = `/6/v2/api/tenants/${DEMO.acme.ccUuid}/extensions/${DEMO.extensionUuid(1001, '101')}/agent_state`;
    const read = (node: ClusterNode) =>
      ask(node, path, { headers: { authorization: admin, 'x-request-id': 'cc' } });
    const fromA = await read(a);
    assert.equal(fromA.status, 200, fromA.body);
    assert.deepEqual(JSON.parse(fromA.body).agent_state.state, { type: 'sign_out', name: 'End of Shift' });
    assert.deepEqual(await read(b), fromA);
  });

  test('a client cannot forge the forwarded mark', async () => {
    for (const mark of ['1', 'true', a.name, 'x'.repeat(43)]) {
      const made = await ask(b, '/api/v1/calls', {
        auth: BOB,
        ...json({ from: '101@1001', to: '102' }),
        headers: { 'content-type': 'application/json', 'x-switchboard-forwarded': mark },
      });
      assert.equal(made.status, 201);
      const callId = JSON.parse(made.body).callId as string;
      assert.ok(a.runtime.switch.leg(callId), `mark ${mark}: still run on the owner`);
      assert.equal(b.runtime.switch.leg(callId), undefined);
      await ask(a, `/api/v1/calls/${callId}`, { auth: BOB, ...json({ callRequest: 'hangupCall' }) });
    }
  });

  test('the owner sees the client’s address: its lock-out of that address holds for a forwarded request', async () => {
    const inject = (node: ClusterNode, ip: string, auth: string) =>
      node.app.inject({
        method: 'POST',
        url: '/api/v1/calls',
        remoteAddress: ip,
        headers: { authorization: basic(auth), 'content-type': 'application/json' },
        payload: JSON.stringify({ from: '101@1001', to: '102' }),
      });
    // Three failed logins on the owner from one address lock that address out there.
    for (let i = 0; i < 3; i++) await inject(a, '203.0.113.7', '101@1001:0000');
    assert.equal((await inject(a, '203.0.113.7', BOB)).statusCode, 403, 'locked out on the owner');
    // Node b knows nothing of it and lets the request through; the owner refuses that address.
    const locked = await inject(b, '203.0.113.7', BOB);
    assert.equal(locked.statusCode, 403);
    assert.equal(locked.json().errorCode, 'LOCKED_OUT');
    const other = await inject(b, '203.0.113.8', BOB);
    assert.equal(other.statusCode, 201);
    await ask(a, `/api/v1/calls/${other.json().callId as string}`, {
      auth: BOB,
      ...json({ callRequest: 'hangupCall' }),
    });
  });
});
