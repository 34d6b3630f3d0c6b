import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type BrowserFixture, browserFixture, text } from './browser.js';

describe('contact-center test pages', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture();
  });
  after(async () => fx.close());

  test('apitest: a token on the page, then GET tenants shows the tenants', async () => {
    const page = await fx.page('/6/restapi/apitest.html');
    assert.equal(await page.inputValue('#domain'), fx.server.httpUrl);
    await page.getByRole('button', { name: 'Get token' }).click();
    await page.getByText('Signed in as admin').waitFor();
    assert.match(await page.inputValue('#requestHeaders'), /^Authorization: Bearer \S+$/m);
    await page.fill('#endpoint', 'tenants');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('#responseBody', { hasText: '"items"' }).waitFor();
    const body = JSON.parse(await text(page.locator('#responseBody')));
    assert.equal(body.success, true);
    assert.ok(
      body.items.some((t: { platform_tenant_name: string }) => t.platform_tenant_name === 'Acme Corp'),
    );
    assert.match(await text(page.locator('#responseHeaders')), /^HTTP 200/);
    await fx.shot(page, 'apitest');
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await text(page.locator('#responseBody')), '');
  });

  test('apitest: a tenant user is refused a telco endpoint and sees the error body', async () => {
    const page = await fx.page('/6/restapi/apitest.html');
    await page.fill('#tenantDomain', '1001');
    await page.fill('#username', '101');
    await page.fill('#password', '1234');
    await page.getByRole('button', { name: 'Get token' }).click();
    await page.getByText('Signed in as 101@1001').waitFor();
    await page.fill('#endpoint', 'products/');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('#responseHeaders', { hasText: 'HTTP 403' }).waitFor();
    assert.equal(JSON.parse(await text(page.locator('#responseBody'))).success, false);
  });

  test('apitest: a tenant admin works within their own tenant, not another', async () => {
    const page = await fx.page('/6/restapi/apitest.html');
    await page.fill('#tenantDomain', '1001');
    await page.fill('#username', '100');
    await page.fill('#password', '1234');
    await page.getByRole('button', { name: 'Get token' }).click();
    await page.getByText('Signed in as 100@1001').waitFor();
    await page.fill('#endpoint', 'extensions');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('#responseHeaders', { hasText: 'HTTP 200' }).waitFor();
    const own = JSON.parse(await text(page.locator('#responseBody')));
    assert.ok(
      own.items.some(
        (e: { extension: string; lastname: string }) => e.extension === '101' && e.lastname === 'Brown',
      ),
    );

    const tenants = (await (
      await fx.server.fetch('/6/v2/api/oauth/token', {
        method: 'POST',
        json: { grant_type: 'password', username: 'admin', password: 'admin' },
      })
    ).json()) as { access_token: string };
    const list = (await (
      await fx.server.fetch('/6/v2/api/tenants', {
        headers: { authorization: `Bearer ${tenants.access_token}` },
      })
    ).json()) as {
      items: { uuid: string; platform_tenant_id: string }[];
    };
    const globex = list.items.find((t) => t.platform_tenant_id === '1002');
    assert.ok(globex);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.fill('#endpoint', `tenants/${globex.uuid}/extensions`);
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.locator('#responseHeaders', { hasText: /HTTP 40[34]/ }).waitFor();
    assert.equal(JSON.parse(await text(page.locator('#responseBody'))).success, false);
  });

  test('wstest: connect with a token, then list the events received', async () => {
    const page = await fx.page('/6/restapi/wstest.html');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.locator('#eventList li[data-direction="received"]', { hasText: 'response connect' }).waitFor();
    const first = await text(page.locator('#eventList li[data-direction="received"] pre').first());
    assert.deepEqual(JSON.parse(first), { response: 'connect', success: true });
    assert.equal(await page.getByRole('button', { name: 'Subscribe' }).isEnabled(), true);

    // An agent changes state through the API: the page lists the event.
    const token = await fx.server.fetch('/6/v2/api/oauth/token', {
      method: 'POST',
      json: { grant_type: 'password', username: '102@1001', password: '1234' },
    });
    const { access_token } = (await token.json()) as { access_token: string };
    const res = await fx.server.fetch('/6/v2/api/agent_state', {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}` },
      json: { request: 'updateAgentState', name: 'Lunch' },
    });
    assert.equal(res.status, 200);
    const event = page.locator('#eventList li[data-direction="received"]', {
      hasText: 'agent_state_changed',
    });
    await event.first().waitFor();
    assert.match(await text(event.first().locator('pre')), /"Lunch"/);
    assert.notEqual(await text(page.locator('#eventCount')), '1');
    await fx.shot(page, 'wstest');
  });
});
