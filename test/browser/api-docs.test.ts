import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type BrowserFixture, browserFixture, text } from './browser.js';

interface Listed {
  name: string;
  kind: 'openapi' | 'asyncapi';
  title: string;
}

/** The OpenAPI documents and the path prefix of their operations (the voice root is `/api` itself). */
const OPENAPI: Record<string, string> = {
  voice: '/api',
  'contact-center': '/6/v2/',
  simulator: '/sim/v1/',
};

describe('API documents pages', () => {
  let fx: BrowserFixture;
  let listed: Listed[];
  before(async () => {
    fx = await browserFixture();
    listed = ((await (await fx.server.fetch('/openapi')).json()) as { documents: Listed[] }).documents;
  });
  after(async () => fx.close());

  const titleOf = (name: string) => {
    const d = listed.find((x) => x.name === name);
    assert.ok(d, `${name} is published`);
    return d.title;
  };

  test('/docs: Swagger UI offers the voice, contact-center and simulator documents with their operations', async () => {
    const page = await fx.page('/docs');
    const select = page.locator('.swagger-ui .topbar select');
    await select.waitFor();
    const options = await select.locator('option').allTextContents();
    for (const name of Object.keys(OPENAPI))
      assert.ok(options.includes(titleOf(name)), `${name} in ${options}`);

    for (const [name, prefix] of Object.entries(OPENAPI)) {
      await select.selectOption({ label: titleOf(name) });
      await page.locator('.swagger-ui .info .title', { hasText: titleOf(name) }).waitFor();
      const paths = page.locator('.swagger-ui .opblock .opblock-summary-path');
      await paths.first().waitFor();
      const shown = await paths.allTextContents();
      assert.ok(shown.length > 0, `${name} shows operations`);
      for (const p of shown) assert.ok(p.replace(/\u200b/g, '').startsWith(prefix), `${name}: ${p}`);
    }
    await fx.shot(page, 'docs-swagger-ui');
  });

  test('/docs?doc=simulator opens the simulator document and an operation expands', async () => {
    const page = await fx.page('/docs/?doc=simulator');
    await page.locator('.swagger-ui .info .title', { hasText: titleOf('simulator') }).waitFor();
    const clock = page.locator('.opblock', { has: page.locator('[data-path="/sim/v1/clock/advance"]') });
    await clock.locator('.opblock-summary').click();
    await clock.locator('.responses-wrapper').waitFor();
    assert.match(await text(clock.locator('.responses-wrapper')), /CLOCK_NOT_VIRTUAL/);
  });

  test('the header links every event document to the AsyncAPI viewer', async () => {
    const page = await fx.page('/docs');
    const link = page.locator('#documents a[data-kind="asyncapi"]', { hasText: titleOf('voice-events') });
    assert.equal(await link.getAttribute('href'), '/docs/events.html?doc=voice-events');
  });

  test('events.html shows the voice socket: channel, operations and every event message', async () => {
    const page = await fx.page('/docs/events.html?doc=voice-events');
    await page.locator('main[aria-busy="false"]').waitFor();
    assert.equal(await page.locator('.events-error').count(), 0);
    assert.match(await text(page.locator('.events-channel h2')), /\/api\/ws/);
    assert.equal(await page.locator('.events-operation').count(), 2);

    const doc = (await (await fx.server.fetch('/openapi/voice-events.json')).json()) as {
      components: { messages: Record<string, { summary: string }> };
    };
    const names = Object.keys(doc.components.messages);
    for (const event of ['webSocketId', 'callDial', 'callOffer', 'callEnd', 'callPark', 'presence']) {
      assert.ok(names.includes(event), `${event} is documented`);
    }
    const sections = page.locator('section.events-message');
    assert.equal(await sections.count(), names.length);
    for (const name of names) {
      const section = page.locator(`#message-${name}`);
      assert.equal(await text(section.locator('.events-summary')), doc.components.messages[name]!.summary);
    }

    // The payload's $ref is resolved into its fields.
    const dial = page.locator('#message-callDial');
    assert.match(await text(dial.locator('.events-schema-name').first()), /DialEvent/);
    const fields = await dial.locator('table.events-fields > tbody > tr > td:first-child').allTextContents();
    for (const f of [
      'subscriptionSetId',
      'event',
      'observedParty',
      'timestamp',
      'callId',
      'dialingDeviceId',
    ]) {
      assert.ok(fields.includes(f), `dial shows ${f}: ${fields}`);
    }
    assert.match(await text(page.locator('#message-clientMessage')), /echo/i);
    await fx.shot(page, 'docs-voice-events');
  });

  test('events.html shows the contact-center socket', async () => {
    const page = await fx.page('/docs/events.html?doc=contact-center-events');
    await page.locator('main[aria-busy="false"]').waitFor();
    assert.equal(await page.locator('.events-error').count(), 0);
    assert.ok((await page.locator('section.events-message').count()) > 0);
    assert.match(await text(page.locator('.events-channel h2')), /\/6\/v2\/sock/);
  });

  test('events.html shows the webhook deliveries with their headers, and the voice socket’s resume query', async () => {
    const page = await fx.page('/docs/events.html?doc=voice-webhooks');
    await page.locator('main[aria-busy="false"]').waitFor();
    assert.equal(await page.locator('.events-error').count(), 0);
    const presence = page.locator('#message-presenceDelivery');
    assert.match(await text(presence), /webhook-signature/);
    assert.match(await text(presence), /deliveryId/);
    assert.match(await text(page.locator('.events-operation')), /HTTP POST/);
    const socket = await fx.page('/docs/events.html?doc=voice-events');
    await socket.locator('main[aria-busy="false"]').waitFor();
    assert.match(await text(socket.locator('.events-channel')), /after/);
  });

  test('events.html names an unknown document', async () => {
    const page = await fx.page('/docs/events.html?doc=nothing');
    await page.locator('.events-error').waitFor();
    assert.match(await text(page.locator('.events-error')), /nothing/);
  });
});
