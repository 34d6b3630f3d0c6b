import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CcApiError, CcClient, type CcClientOptions } from '../../../packages/client/src/index.js';
import { DEMO } from '../../../src/directory/demo-ids.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ACME = DEMO.acme.ccUuid;
const GLOBEX = DEMO.globex.ccUuid;
const ext = (n: string) => DEMO.extensionUuid(1001, n);

describe('contact-center REST through the client', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.stop());
  const cc = (username: string, password = '1234', extra: Partial<CcClientOptions> = {}) =>
    new CcClient({ url: s.httpUrl, username, password, ...extra });

  test('typed answers of the tenant, ACD, extension and agent endpoints', async () => {
    const acme = cc('100@1001');
    const tenants = await acme.tenants();
    assert.deepEqual(
      tenants.items.map((t) => t.uuid),
      [ACME],
    );
    assert.equal(tenants.total, '1');
    const acds = await acme.acds();
    assert.deepEqual(
      acds.items[0]!.map((a) => [a.name, a.extension, a.type]),
      [
        ['Sales', '500', 'voice_queues'],
        ['Support', '501', 'voice_queues'],
      ],
    );
    assert.equal((await acme.extensions()).total, '11');
    const options = await acme.presenceOptions(ACME);
    assert.ok(options.items.some((o) => o.type === 'away' && o.name === 'Break'));

    const before = await acme.agentState(ACME, ext('103'));
    assert.equal(before.success, true);
    assert.deepEqual(before.agent_state.state, { type: 'ready', name: 'Ready' });
    assert.deepEqual(await acme.setAgentState(ext('103'), 'Break'), { success: true });
    assert.deepEqual((await acme.agentState(ACME, ext('103'))).agent_state.state, {
      type: 'away',
      name: 'Break',
    });
    await acme.setAgentState(ext('103'), 'Ready');

    const telco = cc('admin', 'admin');
    const all = await telco.tenants();
    assert.ok(all.items.some((t) => t.uuid === GLOBEX));
    const details = await telco.tenant(ACME);
    assert.equal(details.uuid, ACME);
    assert.equal(details.platform_tenant_id, '1001');
    // A telco user changes an agent's state on the tenant's path.
    assert.deepEqual(await telco.setAgentState(ext('104'), 'Lunch', ACME), { success: true });
    assert.equal((await acme.agentState(ACME, ext('104'))).agent_state.state.name, 'Lunch');
    await telco.setAgentState(ext('104'), 'Ready', ACME);
  });

  test('every error shape is a CcApiError by status, including the success:true quirk', async () => {
    const acme = cc('100@1001');
    const agent = cc('101@1001');

    const notFound = await acme.call('999999').catch((e: unknown) => e);
    assert.ok(notFound instanceof CcApiError);
    assert.equal(notFound.status, 404);
    assert.equal(notFound.reason, 'Not Found');
    assert.equal(notFound.success, false);

    // The call-search 400 says `success: true`; the client still raises.
    const quirk = await acme.searchCall({}).catch((e: unknown) => e);
    assert.ok(quirk instanceof CcApiError);
    assert.equal(quirk.status, 400);
    assert.equal(quirk.success, true);

    const badName = await agent.setOwnAgentState('Nonsense').catch((e: unknown) => e);
    assert.ok(badName instanceof CcApiError);
    assert.equal(badName.status, 400);
    assert.equal(badName.success, false);

    const otherTenant = await agent.presenceOptions(GLOBEX).catch((e: unknown) => e);
    assert.ok(otherTenant instanceof CcApiError);
    assert.equal(otherTenant.status, 403);
    assert.equal(otherTenant.reason, 'Forbidden');

    const wrong = await cc('104@1001', '0000')
      .login()
      .catch((e: unknown) => e);
    assert.ok(wrong instanceof CcApiError);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.reason, 'Unauthorized');
  });

  test('the password grant once, then the refresh grant before the token expires', async () => {
    let now = Date.now();
    const grants: string[] = [];
    const recording: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/oauth/token')) grants.push(JSON.parse(String(init?.body)).grant_type);
      return fetch(input, init);
    };
    const acme = cc('100@1001', '1234', { clock: () => now, http: { fetch: recording } });
    await acme.tenants();
    await acme.extensions();
    assert.deepEqual(grants, ['password']);
    const firstRefresh = acme.tokens.refreshToken!;

    now += 3_600_000; // the hour of the access token is over (on the client's clock)
    assert.equal((await acme.tenants()).items.length, 1);
    assert.deepEqual(grants, ['password', 'refresh_token']);
    assert.notEqual(acme.tokens.refreshToken, firstRefresh);
    // A refresh token works once: the one the client traded is refused now.
    const reuse = await s.fetch('/6/v2/api/oauth/token', {
      method: 'POST',
      json: { grant_type: 'refresh_token', refresh_token: firstRefresh },
    });
    assert.equal(reuse.status, 401);
  });
});
