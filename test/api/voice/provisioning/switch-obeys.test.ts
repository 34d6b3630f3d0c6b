import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestServer, startTestServer } from '../../../helpers/server.js';
import { type EventSocket, openSocket } from '../voice-helpers.js';
import { ADMIN, ALICE, call } from './provisioning-helpers.js';

/** The outside-line prefix the dial-plan scenario provisions (the demo plan has 9; with 9 the scenario passes today). */
const PREFIX = '8';

/** The first frame of an event, waiting for more frames while it has not come. */
async function frameWith(sock: EventSocket, event: string): Promise<Record<string, unknown>> {
  for (;;) {
    const found = sock.frames.find((f) => f.event === event);
    if (found) return found;
    await sock.waitFor(sock.frames.length + 1);
  }
}

/** Scenario tests: what is provisioned over the voice API is what the switch does. */
describe('the switch obeys provisioning', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s.stop());

  const device = async (id: string) => (await call(s, 'GET', `/sim/v1/devices/${id}`, ADMIN)).body;
  const dial = async (from: string, to: string) => {
    const r = await call(s, 'POST', `/sim/v1/devices/${from}/dial`, ADMIN, { to });
    assert.equal(r.status, 201, r.text);
  };
  const hangup = (id: string) => call(s, 'POST', `/sim/v1/devices/${id}/hangup`, ADMIN, {});

  test('a new user with a new phone can log in and be called', async () => {
    const user = await call(s, 'POST', '/api/v1/tenants/1001/users', ALICE, {
      extension: '130',
      firstName: 'Nina',
      lastName: 'New',
      pin: '2468',
    });
    assert.equal(user.status, 201, user.text);
    const phone = await call(s, 'POST', '/api/v1/tenants/1001/phones', ALICE, {
      ownerExtension: '130',
      model: 'phoneModelA',
      macAddress: '02:5b:0a:aa:00:01',
    });
    assert.equal(phone.status, 201, phone.text);
    assert.equal(phone.body.phoneId, 'ph1001-130');
    assert.equal(phone.body.registered, false);

    const root = await call(s, 'GET', '/api/v1', '130@1001:2468');
    assert.equal(root.status, 200, 'the new user logs in');
    assert.equal(root.body._links['v1:user'].href, '/api/v1/tenants/1001/users/130');
    assert.equal((await call(s, 'GET', '/api/v1', '130@1001:1234')).status, 401);

    const reg = await call(s, 'POST', '/sim/v1/devices/ph1001-130/register', ADMIN);
    assert.equal(reg.status, 200, reg.text);
    const state = await call(s, 'GET', '/api/v1/tenants/1001/phones/ph1001-130', ALICE);
    assert.equal(state.body.registered, true, 'registration state is the phone resource’s');

    await dial('ph1001-101', '130');
    const ringing = await device('ph1001-130');
    assert.equal(ringing.calls.length, 1, 'the new phone rings');
    const calls = await call(s, 'GET', '/api/v1/calls', '130@1001:2468');
    assert.equal(calls.body._embedded.calls.length, 1, 'the new user sees the call');
    await hangup('ph1001-101');
  });

  test('a deactivated tenant’s users are refused, and admitted again on reactivation', async () => {
    assert.equal((await call(s, 'GET', '/api/v1', '200@1002:1234')).status, 200);
    const off = await call(s, 'PUT', '/api/v1/tenants/1002', ADMIN, { active: false });
    assert.equal(off.status, 200, off.text);
    assert.equal(off.body.active, false);
    assert.equal((await call(s, 'GET', '/api/v1', '200@1002:1234')).status, 401);
    assert.equal((await call(s, 'GET', '/api/v1', '201@1002:1234')).status, 401);
    assert.equal(
      (await call(s, 'GET', '/api/v1', '100@1001:1234')).status,
      200,
      'other tenants are unaffected',
    );
    await call(s, 'PUT', '/api/v1/tenants/1002', ADMIN, { active: true });
    assert.equal((await call(s, 'GET', '/api/v1', '200@1002:1234')).status, 200);
  });

  test('a new hunt-group member rings, and the membership change raises joinedGroup', async () => {
    const sock = await openSocket(s, ALICE);
    try {
      const set = await call(s, 'POST', `/api/v1/subscriptions/ws/${sock.id}/subscriptionsets`, ALICE);
      const presence = set.body._links['v1:presenceEventSubscriptions'].href;
      const sub = await call(s, 'PUT', presence, ALICE, { eventAccounts: ['105@1001'] });
      assert.equal(sub.status, 200, sub.text);

      const changed = await call(s, 'PUT', '/api/v1/tenants/1001/callinggroups/600', ALICE, {
        members: ['105'],
      });
      assert.equal(changed.status, 200, changed.text);
      assert.deepEqual(changed.body.members, ['105']);
      const [frame] = await sock.waitFor(1);
      assert.equal(frame.event, 'joinedGroup');
      assert.equal(frame.observedParty, '105@1001');
      assert.equal(frame.groupJoined, '600@1001');

      await dial('ph1001-103', '600');
      assert.equal((await device('ph1001-105')).calls.length, 1, 'the new member rings');
      assert.equal((await device('ph1001-101')).calls.length, 0, 'a removed member does not');
      await hangup('ph1001-103');

      await call(s, 'PUT', '/api/v1/tenants/1001/callinggroups/600', ALICE, { members: ['101', '102'] });
      const left = await frameWith(sock, 'leftGroup');
      assert.equal(left.groupLeft, '600@1001');
      assert.equal(left.observedParty, '105@1001');
    } finally {
      await sock.close();
    }
  });

  test('a new DID reaches the extension it names', async () => {
    // Provisioned like the user and phone above, then proven by the switch: here an inbound call.
    const did = await call(s, 'POST', '/api/v1/tenants/1001/dids', ALICE, {
      number: '+15555550188',
      extension: '105',
    });
    assert.equal(did.status, 201, did.text);
    const inbound = await call(s, 'POST', '/sim/v1/pstn/calls', ADMIN, {
      from: '+15555550999',
      to: '+15555550188',
    });
    assert.equal(inbound.status, 201, inbound.text);
    assert.equal((await device('ph1001-105')).calls.length, 1);
    await call(s, 'POST', `/sim/v1/pstn/calls/${inbound.body.pstnCallId}/hangup`, ADMIN);
  });

  test('a tenant created over the API is reachable by all its identities', async () => {
    const tenant = await call(s, 'POST', '/api/v1/tenants', ADMIN, {
      tenantId: 1003,
      name: 'Initech',
      did: '+15555550300',
      webLoginUrl: 'initech.example.test',
    });
    assert.equal(tenant.status, 201, tenant.text);
    assert.equal(tenant.headers.get('location'), '/api/v1/tenants/1003');
    const admin = await call(s, 'POST', '/api/v1/tenants/1003/users', ADMIN, {
      extension: '100',
      firstName: 'Bill',
      lastName: 'Lumbergh',
      pin: '4444',
      admin: true,
    });
    assert.equal(admin.status, 201, admin.text);
    for (const username of [
      '100@1003',
      '100@1003.ID',
      '100@5555550300.DID',
      '100@initech.example.test.URI',
    ]) {
      const root = await call(s, 'GET', '/api', `${username}:4444`);
      assert.equal(root.status, 200, username);
      assert.equal(root.body.tenantName, 'Initech');
    }
    const seen = await call(s, 'GET', '/api/v1/tenants/1003/users', '100@1003:4444');
    assert.deepEqual(
      seen.body._embedded.users.map((u: { extension: string }) => u.extension),
      ['100'],
    );
    assert.equal((await call(s, 'GET', '/api/v1/tenants/1001/users', '100@1003:4444')).status, 403);
  });

  test('the default dial plan decides which dialed digits leave as outside calls', async () => {
    const plan = await call(s, 'PUT', '/api/v1/dialplans/1', ADMIN, { outsideLinePrefix: PREFIX });
    assert.equal(plan.status, 200, plan.text);
    try {
      await dial('ph1001-105', `${PREFIX}5555550142`);
      const out = await call(s, 'GET', '/sim/v1/pstn/calls', ADMIN);
      assert.ok(
        out.body.calls.some((c: { to: string }) => c.to === '+15555550142'),
        `the prefix ${PREFIX} of the default plan reaches the outside number`,
      );
    } finally {
      await hangup('ph1001-105');
      await call(s, 'PUT', '/api/v1/dialplans/1', ADMIN, { outsideLinePrefix: '9' });
    }
  });
});
