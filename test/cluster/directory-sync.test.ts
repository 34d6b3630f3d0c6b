import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { type ClusterNode, clusterSkip, startCluster, type TestCluster } from '../helpers/cluster-nodes.js';
import { ADMIN, ALICE, BOB, GRACE, HANK } from '../api/voice/voice-helpers.js';

/**
 * Every node's directory follows the others' writes (docs/cluster.md § Directory): node a owns
 * tenant 1001, node b tenant 1002; each authenticates from its own in-memory directory.
 */
const skip = await clusterSkip();

describe('directory sync', { skip }, () => {
  let cluster: TestCluster;
  let a: ClusterNode;
  let b: ClusterNode;
  before(async () => {
    cluster = await startCluster(['a', 'b'], { 1001: 'a', 1002: 'b' });
    [a, b] = cluster.nodes;
  });
  after(() => cluster?.stop());

  const status = async (node: ClusterNode, auth: string, path = '/api/v1') =>
    (await node.fetch(path, { auth })).status;
  /** The first answer of a contact-center socket to `connect` with the token. */
  const connect = (node: ClusterNode, token: string) =>
    new Promise<unknown>((resolve, reject) => {
      const ws = new WebSocket(`${node.wsUrl}/6/v2/sock`);
      ws.on('open', () => ws.send(JSON.stringify({ request: 'connect', token })));
      ws.on('message', (data) => {
        resolve(JSON.parse(data.toString()));
        ws.close();
      });
      ws.on('error', reject);
    });
  const put = (node: ClusterNode, auth: string, path: string, json: unknown) =>
    node.fetch(path, { auth, method: 'PUT', json });

  test('a PIN changed through one node is required on the other right after', async () => {
    // Tenant 1001 is a's: the write is a's own.
    assert.equal((await put(a, ALICE, '/api/v1/tenants/1001/users/101', { pin: '9876' })).status, 200);
    assert.equal(await status(b, BOB), 401, 'the old PIN is refused on b');
    assert.equal(await status(b, '101@1001:9876'), 200, 'the new PIN is accepted on b');
    assert.equal(
      b.runtime.directory.extension(1001, '101')?.pinHash,
      a.runtime.directory.extension(1001, '101')?.pinHash,
    );
    // Tenant 1002 is b's: written through a, the write is forwarded to b, and a learns it back.
    assert.equal((await put(a, GRACE, '/api/v1/tenants/1002/users/201', { pin: '2468' })).status, 200);
    assert.equal(await status(a, HANK), 401, 'the old PIN is refused on a');
    assert.equal(await status(a, '201@1002:2468'), 200);
  });

  test('a contact-center token dies on every node with its user’s PIN', async () => {
    // Issued on b, so b holds it in memory; the socket's connect reads that memory, never forwarded.
    const grant = await b.fetch('/6/v2/api/oauth/token', {
      method: 'POST',
      json: { grant_type: 'password', username: '102@1001', password: '1234' },
    });
    const { access_token } = (await grant.json()) as { access_token: string };
    assert.deepEqual(await connect(b, access_token), { response: 'connect', success: true });
    assert.equal((await put(a, ALICE, '/api/v1/tenants/1001/users/102', { pin: '1357' })).status, 200);
    for (const node of [a, b]) {
      assert.deepEqual(
        await connect(node, access_token),
        { response: 'connect', success: false, reason: 'Unauthorized' },
        `revoked on ${node.name}`,
      );
    }
  });

  test('records created and removed on one node are there, and gone, on the other', async () => {
    const made = await a.fetch('/api/v1/tenants/1001/users', {
      auth: ALICE,
      method: 'POST',
      json: { extension: '170', firstName: 'Quinn', pin: '2468' },
    });
    assert.equal(made.status, 201);
    assert.equal(b.runtime.directory.extension(1001, '170')?.firstName, 'Quinn');
    assert.equal(await status(b, '170@1001:2468'), 200, 'the new user logs in on b');
    const gone = await b.fetch('/api/v1/tenants/1001/users/170', { auth: ALICE, method: 'DELETE' });
    assert.equal(gone.status, 200);
    for (const node of [a, b]) {
      assert.equal(node.runtime.directory.extension(1001, '170'), undefined, node.name);
      assert.equal(await status(node, '170@1001:2468'), 401, node.name);
    }
    for (const node of [a, b]) {
      assert.equal(
        node.runtime.directory.isRetired('extension', '1001:170'),
        true,
        `retired on ${node.name}`,
      );
    }
  });

  test('a change that concerns no tenant (a new tenant) reaches every node', async () => {
    const made = await b.fetch('/api/v1/tenants', {
      auth: ADMIN,
      method: 'POST',
      json: { tenantId: 1007, name: 'Hooli' },
    });
    assert.equal(made.status, 201, await made.text());
    assert.equal(a.runtime.directory.tenant(1007)?.name, 'Hooli');
  });
});
