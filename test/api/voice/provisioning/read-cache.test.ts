import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fetcherOf, suiteServer } from '../../../helpers/server.js';
import { ADMIN, ALICE, BOB, call, OPERATOR, type Reply } from './provisioning-helpers.js';

const GRACE = '200@1002:1234'; // Globex's tenant admin

/**
 * Reads kept as text (src/api/route-core/read-cache.ts): each test reads twice before the change,
 * so the second answer is the kept one, then checks the read after the change is the new state.
 */
describe('kept reads follow every change and never cross principals', () => {
  const server = suiteServer();
  const get = async (path: string, auth: string): Promise<Reply> => {
    await call(server(), 'GET', path, auth);
    const r = await call(server(), 'GET', path, auth);
    return r;
  };

  test('a write, then a read of the record and of its list, shows the write', async () => {
    const s = server();
    const item = '/api/v1/tenants/1001/users/102';
    const list = '/api/v1/tenants/1001/users?expand=item';
    assert.equal((await get(item, ALICE)).body.firstName, 'Carol');
    const before = await get(list, ALICE);
    assert.ok(before.body._embedded.users.some((u: { firstName: string }) => u.firstName === 'Carol'));
    const put = await call(s, 'PUT', item, ALICE, { firstName: 'Caroline' });
    assert.equal(put.status, 200, put.text);
    assert.equal((await call(s, 'GET', item, ALICE)).body.firstName, 'Caroline');
    const after = await call(s, 'GET', list, ALICE);
    const names = after.body._embedded.users.map((u: { firstName: string }) => u.firstName);
    assert.ok(names.includes('Caroline') && !names.includes('Carol'), names.join());
    // HEAD of a kept read: the same status and no body.
    const head = await s.fetch(item, { method: 'HEAD', auth: ALICE });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
  });

  test('another role or tenant never gets the answer kept for the first', async () => {
    const s = server();
    const phones = '/api/v1/tenants/1001/users/102/phones';
    assert.equal((await get(phones, ALICE)).status, 200);
    const bob = await call(s, 'GET', phones, BOB);
    assert.equal(bob.status, 403, bob.text);
    assert.equal(bob.body.errorCode, 'OWN_EXTENSION_ONLY');
    const grace = await call(s, 'GET', phones, GRACE);
    assert.equal(grace.status, 403, grace.text);
    assert.equal(grace.body.errorCode, 'TENANT_FORBIDDEN');

    const aliceRoot = await get('/api/v1', ALICE);
    const bobRoot = await get('/api/v1', BOB);
    assert.notEqual(aliceRoot.text, bobRoot.text);
    assert.equal(bobRoot.body._links['v1:user'].href, '/api/v1/tenants/1001/users/101');
    assert.equal(aliceRoot.body._links['v1:user'].href, '/api/v1/tenants/1001/users/100');
    const graceRoot = await call(s, 'GET', '/api/v1', GRACE);
    assert.equal(graceRoot.body._links['v1:user'].href, '/api/v1/tenants/1002/users/200');
    // An unauthenticated request to a kept URL is refused, not answered from the keep.
    assert.equal((await call(s, 'GET', '/api/v1', '101@1001:9999')).status, 401);
  });

  test('a changed permission or credential is honoured at once', async () => {
    const s = server();
    const root = await get('/api/v1', BOB);
    const adminLinks = (r: Reply) => Object.keys(r.body._links).filter((k) => k === 'v1:tenant').length;
    const tenantBefore = await get('/api/v1/tenants/1001/users/103', BOB);
    assert.equal(tenantBefore.status, 403, 'a user reads only their own record');
    const grant = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', ALICE, { admin: true });
    assert.equal(grant.status, 200, grant.text);
    const tenantAfter = await call(s, 'GET', '/api/v1/tenants/1001/users/103', BOB);
    assert.equal(tenantAfter.status, 200, 'made a tenant admin, the user reads the others');
    const rootAfter = await call(s, 'GET', '/api/v1', BOB);
    assert.notEqual(rootAfter.text, root.text);
    assert.ok(adminLinks(rootAfter) >= adminLinks(root));
    const revoke = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', ALICE, { admin: false });
    assert.equal(revoke.status, 200, revoke.text);
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1001/users/103', BOB)).status, 403);
    assert.equal((await call(s, 'GET', '/api/v1', BOB)).text, root.text);

    const pin = await call(s, 'PUT', '/api/v1/tenants/1001/users/101', ALICE, { pin: '8642' });
    assert.equal(pin.status, 200, pin.text);
    assert.equal((await call(s, 'GET', '/api/v1', BOB)).status, 401, 'the old PIN no longer reads');
    const fresh = await call(s, 'GET', '/api/v1', '101@1001:8642');
    assert.equal(fresh.status, 200);
    assert.equal(fresh.text, root.text);
    await call(s, 'PUT', '/api/v1/tenants/1001/users/101', ALICE, { pin: '1234' });
  });

  test('a phone registering or logging out shows in every read of it', async () => {
    const s = server();
    const reads = [
      ['/api/v1/tenants/1001/phones/ph1001-101', (r: Reply) => r.body.registered],
      [
        '/api/v1/tenants/1001/phones?expand=item',
        (r: Reply) =>
          r.body._embedded.phones.find((p: { phoneId: string }) => p.phoneId === 'ph1001-101').registered,
      ],
      [
        '/api/v1/tenants/1001/users/101/phones?expand=item',
        (r: Reply) =>
          r.body._embedded.phones.find((p: { phoneId: string }) => p.phoneId === 'ph1001-101').registered,
      ],
    ] as const;
    for (const [path, registered] of reads) assert.equal(registered(await get(path, ALICE)), true, path);
    // The scoped operator's read and the unscoped telco admin's both run on the tenant's owner in
    // a cluster, where the phone registers.
    const state = await get('/api/v1/devicestates/ph1001-101', OPERATOR);
    assert.equal(state.status, 200, state.text);
    const stateOf = async () =>
      ((await call(s, 'GET', '/api/v1/devicestates/ph1001-101', ADMIN)).body as { state: string }).state;
    const registeredState = await stateOf();
    const unreg = await call(s, 'POST', '/sim/v1/devices/ph1001-101/unregister', ADMIN);
    assert.equal(unreg.status, 200, unreg.text);
    for (const [path, registered] of reads)
      assert.equal(registered(await call(s, 'GET', path, ALICE)), false, path);
    assert.notEqual((await call(s, 'GET', '/api/v1/devicestates/ph1001-101', OPERATOR)).text, state.text);
    // Asked several times: behind the test proxy each read may reach either node.
    for (let i = 0; i < 4; i++) assert.notEqual(await stateOf(), registeredState);
    await call(s, 'POST', '/sim/v1/devices/ph1001-101/register', ADMIN);
    for (const [path, registered] of reads)
      assert.equal(registered(await call(s, 'GET', path, ALICE)), true, path);
    assert.equal((await call(s, 'GET', '/api/v1/devicestates/ph1001-101', OPERATOR)).text, state.text);
    for (let i = 0; i < 4; i++) assert.equal(await stateOf(), registeredState);
  });

  test('expand and filter are part of what is kept', async () => {
    const list = '/api/v1/tenants/1001/users';
    const plain = await get(list, ALICE);
    const expanded = await get(`${list}?expand=item`, ALICE);
    const filtered = await get(`${list}?expand=item&filter=eq(extension,101)`, ALICE);
    assert.equal(plain.status, 200);
    assert.equal(filtered.status, 200, filtered.text);
    assert.equal(plain.body._embedded.users[0].pin, undefined);
    assert.ok(plain.body._embedded.users.length > 1);
    assert.ok(expanded.body._embedded.users.length === plain.body._embedded.users.length);
    assert.notEqual(plain.text, expanded.text);
    assert.deepEqual(
      filtered.body._embedded.users.map((u: { extension: string }) => u.extension),
      ['101'],
    );
    assert.equal((await call(server(), 'GET', list, ALICE)).text, plain.text);
  });

  test('in a cluster, a write through one node shows in the kept reads of every node', async (t) => {
    const s = server();
    if (s.nodes.length < 2) return t.skip('a single node');
    // The operator is unscoped: its reads of a tenant run on the node that received them.
    const nodes = s.nodes.map((n) => fetcherOf(n.httpUrl));
    const path = '/api/v1/tenants/1001/users/104';
    const read = async (f: (typeof nodes)[number]) =>
      ((await (await f(path, { auth: ADMIN })).json()) as { lastName: string }).lastName;
    const was: string[] = [];
    for (const f of nodes) {
      await read(f);
      was.push(await read(f));
    }
    const put = await nodes[0]!(path, { method: 'PUT', auth: ADMIN, json: { lastName: 'Kept-Not' } });
    assert.equal(put.status, 200, await put.text());
    for (const f of nodes) assert.equal(await read(f), 'Kept-Not');
    assert.ok(was.every((n) => n !== 'Kept-Not'));
  });
});
