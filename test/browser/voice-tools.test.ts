import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type BrowserFixture, browserFixture, text } from './browser.js';

describe('voice API browser tools', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture();
  });
  after(async () => fx.close());

  test('browser.html: start at /api, follow links, fill a template, see _embedded, send POST, PUT and DELETE', async () => {
    const page = await fx.page('/api/browser/browser.html');
    await page.fill('#username', '100@1001');
    await page.fill('#password', '1234');
    await page.getByRole('button', { name: 'Start at /api' }).click();
    await page.locator('#statusLine', { hasText: 'GET /api → 200' }).waitFor();
    const tenantRow = page.locator('table.props tr', { has: page.locator('td', { hasText: /^tenantId$/ }) });
    assert.equal(await text(tenantRow.locator('td').nth(1)), '1001');
    await page.locator('tr[data-rel="api:v1"] button').click();
    await page.locator('#statusLine', { hasText: 'GET /api/v1 → 200' }).waitFor();
    const root = (await (await fx.server.fetch('/api/v1', { auth: '100@1001:1234' })).json()) as {
      _links: Record<string, unknown>;
    };
    const rels = Object.keys(root._links).filter((r) => r !== 'curies');
    assert.equal(await page.locator('table.links tbody tr').count(), rels.length);

    // A template: the presence of one extension.
    const form = page.locator('form[data-template="v1:presenceStatusByExtension"]');
    if (await form.count()) {
      await form.locator('input').first().fill('101');
      await form.getByRole('button', { name: 'Go' }).click();
    } else {
      await page.locator('tr[data-rel="v1:presenceStatusByExtension"] button').click();
    }
    await page.locator('#statusLine', { hasText: /presencestatus.* → 200/ }).waitFor();
    await fx.shot(page, 'browser-presence');

    // POST with a body: a subscription set needs a socket, so an unknown one answers an error.
    await page.selectOption('#method', 'POST');
    assert.equal(await page.locator('#body').isVisible(), true);
    await page.fill('#address', '/api/v1/calls/999999');
    await page.fill('#body', '{"callRequest": "holdCall", "myPartyId": "100@1001"}');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#statusLine', { hasText: /POST \/api\/v1\/calls\/999999 → 4\d\d/ }).waitFor();
    assert.match(await text(page.locator('#rawBody')), /"status": 4\d\d/);

    // _embedded items with their own links, then a PUT with a body that changes the resource.
    await page.selectOption('#method', 'GET');
    await page.fill('#address', '/api/v1/tenants/1001/extensions');
    await page.getByRole('button', { name: 'Send' }).click();
    const embedded = page.locator('.hal-embedded[data-embed="extensions"] table.items tbody tr');
    await embedded.first().waitFor();
    assert.ok((await embedded.count()) >= 7);
    // An item's own link is followed from its row.
    await page.getByRole('button', { name: 'self /api/v1/tenants/1001/extensions/101' }).click();
    await page.locator('#statusLine', { hasText: 'GET /api/v1/tenants/1001/extensions/101 → 200' }).waitFor();
    await page.getByRole('button', { name: 'Back' }).click();
    await embedded.first().waitFor();
    await fx.shot(page, 'browser-embedded');
    await page.selectOption('#method', 'PUT');
    await page.fill('#address', '/api/v1/tenants/1001/users/102');
    await page.fill('#body', '{"dnd": true}');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#statusLine', { hasText: 'PUT /api/v1/tenants/1001/users/102 → 200' }).waitFor();
    const presence = (await (
      await fx.server.fetch('/api/v1/presencestatus/tenants/1001/extensions/102', { auth: '100@1001:1234' })
    ).json()) as { dnd: string };
    assert.equal(presence.dnd, 'dndOn');
    // DELETE is sent as such: enums are read-only, so the answer is 405 with Allow.
    await page.selectOption('#method', 'DELETE');
    await page.fill('#address', '/api/v1/enums/callrequest');
    await page.fill('#body', '');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('#statusLine', { hasText: 'DELETE /api/v1/enums/callrequest → 405' }).waitFor();
    assert.match(await text(page.locator('#rawHeaders')), /^allow: .*GET/m);
  });

  test('graph.html draws a node for every relation of the live v1 root', async () => {
    const page = await fx.page('/api/browser/graph.html');
    await page.getByRole('button', { name: 'Draw' }).click();
    await page.locator('#graph svg').waitFor();
    const root = (await (await fx.server.fetch('/api/v1', { auth: 'admin:admin' })).json()) as {
      _links: Record<string, unknown>;
    };
    const rels = Object.keys(root._links).filter((r) => r !== 'curies' && r !== 'self');
    assert.ok(rels.length > 20);
    for (const rel of rels)
      assert.equal(await page.locator(`#graph g.node[data-rel="${rel}"]`).count(), 1, rel);
    assert.equal(await page.locator('#graph g.node[data-rel="api:v1"]').count(), 1);
    const dict = (await (await fx.server.fetch('/api/v1/uridictionary', { auth: 'admin:admin' })).json()) as {
      _links: Record<string, unknown>;
    };
    assert.ok(Object.keys(dict._links).length > 0);
    assert.ok((await page.locator('#graph g.node.kind-template').count()) > 0);
    const edges = await page.locator('#graph path.edge').count();
    const nodes = await page.locator('#graph g.node').count();
    assert.equal(edges, nodes - 1, 'a tree: every node but the root has one incoming edge');
    await fx.shot(page, 'graph');
  });

  test('list.html shows every resource and template with who may see it', async () => {
    const page = await fx.page('/api/browser/list.html');
    await page.getByRole('button', { name: 'Load' }).click();
    await page.locator('#status', { hasText: 'Loaded' }).waitFor();
    const row = (key: string) =>
      page.locator(`#resources tr[data-key="${key}"] td.yes, #resources tr[data-key="${key}"] td.no`);
    const cells = async (key: string) => (await row(key).allInnerTexts()).map((t) => t === '✓');
    // Columns: telco admin, scoped telco, tenant admin, user, location.
    assert.deepEqual(await cells('v1 v1:tenants'), [true, false, false, false, false]);
    assert.deepEqual((await cells('v1 v1:activeCalls')).slice(1, 4), [true, true, true]);
    assert.equal((await cells('v1 v1:activeCalls'))[0], false);
    assert.deepEqual((await cells('v1 v1:uriDictionary')).slice(0, 4), [true, true, true, false]);
    assert.ok((await page.locator('#resources tr[data-key^="template "]').count()) > 10);
    await fx.shot(page, 'list');
    await page.fill('#filter', 'presence');
    assert.ok((await page.locator('#resources tbody tr').count()) < 15);
  });

  test('wstool.html: webSocketId over Basic credentials, a subscription set, and click-to-call events', async () => {
    const page = await fx.page('/api/wstool/wstool.html');
    await page.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.locator('#webSocketId', { hasText: /^[0-9a-f-]{36}$/ }).waitFor();
    await page.getByRole('button', { name: 'Create subscription set' }).click();
    await page.locator('#subscriptionSetId', { hasText: /^[0-9a-f-]{36}$/ }).waitFor();
    assert.equal(await page.inputValue('#callAccounts'), 'ALL');
    await page.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await page.locator('#subscribeStatus', { hasText: /Subscribed|Refused/ }).waitFor();
    assert.match(await text(page.locator('#subscribeStatus')), /^Subscribed/);

    const res = await fx.server.fetch('/api/v1/calls', {
      method: 'POST',
      auth: '100@1001:1234',
      json: { request: 'makeCall', from: '100@1001', to: '101' },
    });
    assert.equal(res.status, 201, await res.text());
    await page.locator('#eventList li[data-kind="event"]', { hasText: 'dial · 100@1001' }).waitFor();
    await page.locator('#eventList li[data-kind="event"]', { hasText: 'offer · 101@1001' }).waitFor();
    await fx.shot(page, 'wstool');

    // Keep-alive: a short text the server echoes.
    await page.fill('#keepAliveSeconds', '1');
    await page.locator('#keepAliveSeconds').dispatchEvent('change');
    await page.locator('#eventList li[data-kind="echo"]', { hasText: 'keepalive' }).first().waitFor();
  });
});
