import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { basic } from '../helpers/server.js';
import { type BrowserFixture, browserFixture, text } from './browser.js';

/** A socket the test holds, so that the page's own socket is the second of its user and address. */
function holdVoiceSocket(fx: BrowserFixture, user: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${fx.server.wsUrl}/api/ws`, { headers: { authorization: basic(user) } });
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function holdCcSocket(fx: BrowserFixture, username: string, password: string): Promise<WebSocket> {
  const grant = await fx.server.fetch('/6/v2/api/oauth/token', {
    method: 'POST',
    json: { grant_type: 'password', username, password },
  });
  const { access_token } = (await grant.json()) as { access_token: string };
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${fx.server.wsUrl}/6/v2/sock`);
    ws.once('open', () => ws.send(JSON.stringify({ request: 'connect', token: access_token })));
    ws.once('message', () => resolve(ws));
    ws.once('error', reject);
  });
}

describe('the browser tools explain common failures in words', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture();
  });
  after(async () => fx.close());

  test('a second voice socket of the same user and address: the one-socket-per-client limit', async () => {
    const held = await holdVoiceSocket(fx, '100@1001:1234');
    try {
      const page = await fx.page('/api/wstool/wstool.html');
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
      await page.locator('#socketStatus', { hasText: 'one socket per user and address' }).waitFor();
    } finally {
      held.close();
    }
  });

  test('a second contact-center socket is refused with 1013, and the page says why', async () => {
    const held = await holdCcSocket(fx, '100@1001', '1234');
    try {
      const page = await fx.page('/6/restapi/wstest.html');
      await page.getByRole('button', { name: 'Connect', exact: true }).click();
      const status = page.locator('#socketStatus', { hasText: '1013' });
      await status.waitFor();
      assert.match(await text(status), /one socket per client/);
    } finally {
      held.close();
    }
  });

  test('a lock-out after failed logins is named as one', async () => {
    const page = await fx.page('/6/restapi/apitest.html');
    await page.fill('#username', 'admin');
    await page.fill('#password', 'wrong');
    for (let i = 0; i < 4; i++) {
      await page.getByRole('button', { name: 'Get token' }).click();
      await page.locator('#tokenStatus', { hasText: 'No token' }).waitFor();
    }
    await page.locator('#tokenStatus', { hasText: 'Locked out: too many failed logins' }).waitFor();
  });
});

describe('the live console', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture();
  });
  after(async () => fx.close());

  test('offers only the selected tenant’s numbers, and reconnects its sockets after a restart', async () => {
    const page = await fx.page('/console/');
    await page.locator('#connection', { hasText: 'voice events: subscribed to ALL' }).waitFor();
    const options = () =>
      page
        .locator('#dids option')
        .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
    assert.deepEqual((await options()).sort(), ['+15555550100', '+15555550150']);

    // Globex has one number of its own; none of Acme's is offered there.
    const did = await fx.server.fetch('/api/v1/tenants/1002/dids', {
      method: 'POST',
      auth: '200@1002:1234',
      json: { number: '+15555550201', extension: '201' },
    });
    assert.equal(did.status, 201, await did.text());
    await page.getByRole('button', { name: 'Globex (1002)' }).click();
    await page.locator('#connection', { hasText: 'voice events: subscribed to ALL' }).waitFor();
    await page.waitForFunction("document.querySelectorAll('#dids option').length === 1");
    assert.deepEqual(await options(), ['+15555550201']);
    assert.equal(await page.inputValue('#pstnTo'), '+15555550201');

    // What a restart does to the sockets: the server closes them with 1001.
    for (const client of fx.server.app.websocketServer.clients) client.close(1001, 'server shutting down');
    await page.locator('#connection', { hasText: 'Reconnecting' }).waitFor();
    await page
      .locator('#connection', { hasText: 'voice events: subscribed to ALL' })
      .waitFor({ timeout: 15_000 });
    await page
      .locator('#connection', { hasText: 'contact-center events: connected' })
      .waitFor({ timeout: 15_000 });
  });
});
