import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { type BrowserFixture, browserFixture, text } from './browser.js';

async function openConsole(fx: BrowserFixture): Promise<Page> {
  const page = await fx.page('/console/');
  await page.locator('#connection', { hasText: 'voice events: subscribed to ALL' }).waitFor();
  await page.locator('#connection', { hasText: 'contact-center events: connected' }).waitFor();
  await page.locator('tr[data-agent="101"]').waitFor();
  return page;
}

describe('live console', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture();
  });
  after(async () => fx.close());

  test('an outside call to the Sales DID queues, rings agent 101, is answered with a click, then hung up', async () => {
    const page = await openConsole(fx);
    assert.equal(
      await page.getByRole('button', { name: 'Acme Corp (1001)' }).getAttribute('aria-pressed'),
      'true',
    );
    // No Sales agent is Ready, so the call waits in the queue.
    for (const ext of ['101', '102', '103']) {
      await page.getByLabel(`Agent state of ${ext}`).selectOption('Break');
      await page.locator(`tr[data-agent="${ext}"][data-agent-state="Break"]`).waitFor();
    }
    await page.fill('#pstnTo', '+15555550150');
    await page.getByRole('button', { name: 'Place outside call' }).click();
    const waiting = page.locator('[data-queue="500"] li[data-from="+15557654321"]');
    await waiting.waitFor();
    assert.match(await text(page.locator('[data-queue="500"] h3')), /1 waiting/);
    await page.locator('#eventLog li[data-event="call_queued"]').waitFor();
    await fx.shot(page, 'console-queued');

    // Agent 101 becomes Ready: the queued call is offered to 101's phone.
    await page.getByLabel('Agent state of 101').selectOption('Ready');
    const phone101 = page.locator('tr[data-ext="101"] td[data-device-state="ringing"]');
    await phone101.waitFor();
    await page.locator('tr[data-agent="101"] td[data-phone-state="Ringing"]').waitFor();
    await fx.shot(page, 'console-ringing');

    await page.getByRole('button', { name: "Answer on 101's phone" }).click();
    await page.locator('tr[data-leg-account="101@1001"][data-state="connected"]').waitFor();
    await page.locator('tr[data-ext="101"] td.presence', { hasText: 'busy' }).waitFor();
    await page.locator('tr[data-agent="101"] td[data-phone-state="Talking"]').waitFor();
    await waiting.waitFor({ state: 'detached' });
    await fx.shot(page, 'console-connected');

    await page.getByRole('button', { name: "Hang up 101's phone" }).click();
    await page.locator('#calls', { hasText: 'No active calls.' }).waitFor();
    await page.locator('tr[data-ext="101"] td[data-device-state="idle"]').waitFor();
    assert.equal(await text(page.locator('#callCount')), '0');
  });

  test('click to call, hold and resume, park and retrieve through the voice API', async () => {
    const page = await openConsole(fx);
    await page.getByLabel('From').nth(1).selectOption('105');
    await page.fill('#c2cTo', '102');
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await page.locator('tr[data-ext="102"] td[data-device-state="ringing"]').waitFor();
    await page.getByRole('button', { name: "Answer on 102's phone" }).click();
    await page.locator('tr[data-leg-account="105@1001"][data-state="connected"]').waitFor();

    await page.getByRole('button', { name: 'Hold 105@1001' }).click();
    await page.locator('tr[data-leg-account="105@1001"][data-state="held"]').waitFor();
    await page.locator('tr[data-leg-account="102@1001"][data-state="remoteHeld"]').waitFor();
    await page.getByRole('button', { name: 'Resume 105@1001' }).click();
    await page.locator('tr[data-leg-account="105@1001"][data-state="connected"]').waitFor();

    await page.getByRole('button', { name: 'Park the other party of 105@1001' }).click();
    await page.locator('tr[data-park="PL1@1001"][data-state="busy"]').waitFor();
    await fx.shot(page, 'console-parked');
    await page.getByLabel('Retrieve PL1@1001 to extension').selectOption('103');
    await page.getByRole('button', { name: 'Retrieve PL1@1001' }).click();
    await page.locator('tr[data-park="PL1@1001"][data-state="idle"]').waitFor();
    await page.locator('tr[data-leg-account="103@1001"][data-state="connected"]').waitFor();
    await page.getByRole('button', { name: 'Hang up 103@1001' }).click();
    await page.locator('#calls', { hasText: 'No active calls.' }).waitFor();
  });

  test('transfer: one held and one active call of the same user are joined', async () => {
    const page = await openConsole(fx);
    const callFrom105 = async (to: string) => {
      await page.getByLabel('From').nth(1).selectOption('105');
      await page.fill('#c2cTo', to);
      await page.getByRole('button', { name: 'Call', exact: true }).click();
      await page.locator(`tr[data-ext="${to}"] td[data-device-state="ringing"]`).waitFor();
      await page.getByRole('button', { name: `Answer on ${to}'s phone` }).click();
      await page.locator(`tr[data-leg-account="${to}@1001"][data-state="connected"]`).waitFor();
    };
    await callFrom105('102');
    await page.getByRole('button', { name: 'Hold 105@1001' }).click();
    await page.locator('tr[data-leg-account="105@1001"][data-state="held"]').waitFor();
    await callFrom105('103');
    await page.getByRole('button', { name: 'Transfer 105@1001 to the held call' }).click();
    await page.locator('tr[data-leg-account="105@1001"]').first().waitFor({ state: 'detached' });
    await page.locator('#eventLog li[data-event="transfer"]').first().waitFor();
    await fx.shot(page, 'console-transferred');
    // 102 (was held) and 103 (the consultation target) now talk to each other.
    await page.locator('tr[data-leg-account="102@1001"][data-state="connected"]').waitFor();
    await page.locator('tr[data-leg-account="103@1001"][data-state="connected"]').waitFor();
    await page.locator('#eventLog li[data-event="transfer"]').first().waitFor();
    await fx.shot(page, 'console-transferred');
    await page.getByRole('button', { name: 'Hang up 103@1001' }).click();
    await page.locator('#calls', { hasText: 'No active calls.' }).waitFor();
  });

  test('unregister and register a phone, do-not-disturb, and the other tenant one click away', async () => {
    const page = await openConsole(fx);
    await page.getByRole('button', { name: "Unregister 105's phone" }).click();
    await page.locator('tr[data-ext="105"] td.presence', { hasText: 'unavailable' }).waitFor();
    await page.getByRole('button', { name: "Register 105's phone" }).focus();
    await page.keyboard.press('Enter');
    await page.locator('tr[data-ext="105"] td.presence', { hasText: /\bavailable/ }).waitFor();
    await page.getByRole('button', { name: 'Turn do-not-disturb on for 105@1001' }).click();
    await page.locator('tr[data-ext="105"] td.presence', { hasText: 'DND' }).waitFor();
    await page.locator('#eventLog li[data-event="dndOn"]').waitFor();
    await page.getByRole('button', { name: 'Turn do-not-disturb off for 105@1001' }).click();
    await page.locator('#eventLog li[data-event="dndOff"]').waitFor();
    await page.locator('tr[data-ext="105"] td.presence', { hasText: 'DND' }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Globex (1002)' }).click();
    await page.locator('tr[data-ext="201"]').waitFor();
    assert.equal(await page.locator('tr[data-ext="101"]').count(), 0);
    await fx.shot(page, 'console-globex');
  });
});

describe('live console without the simulator', () => {
  let fx: BrowserFixture;
  before(async () => {
    fx = await browserFixture({ sim: false });
  });
  after(async () => fx.close());

  test('shows the API views and says the simulator is off', async () => {
    const page = await fx.page('/console/');
    await page.locator('tr[data-ext="101"]').waitFor();
    await page.locator('#calls', { hasText: 'The simulator answered 404' }).waitFor();
    await page.locator('tr[data-park="PL1@1001"][data-state="idle"]').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Acme Corp (1001)' }).count(), 1);
    await fx.shot(page, 'console-no-sim');
  });
});
