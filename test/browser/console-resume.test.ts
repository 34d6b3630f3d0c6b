// The console follows both event streams through the typed client with resume on (issue 18): when
// the server drops its sockets while things happen, the console reconnects, resumes, and shows
// each event it missed once; nothing is shown twice at the seam.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { dropServerSockets, type ServerSocket, trackSockets } from '../api/client/client-helpers.js';
import { basic } from '../helpers/server.js';
import { type BrowserFixture, browserFixture } from './browser.js';

const ADMIN = '100@1001:1234';

interface CcAnswer {
  access_token?: string;
  items?: { extension: string; uuid: string }[];
}

describe('live console: resume after dropped sockets', () => {
  let fx: BrowserFixture;
  let sockets: ServerSocket[];
  let page: Page;

  before(async () => {
    fx = await browserFixture();
    sockets = trackSockets(fx.server);
  });
  after(async () => fx?.close());

  /** The tenant admin's calls, as another application would make them. */
  async function voiceDnd(ext: string, dnd: boolean) {
    const res = await fetch(`${fx.server.httpUrl}/api/v1/tenants/1001/users/${ext}`, {
      method: 'PUT',
      headers: { authorization: basic(ADMIN), 'content-type': 'application/json' },
      body: JSON.stringify({ dnd }),
    });
    assert.equal(res.status, 200, await res.text());
  }
  async function agentState(ext: string, name: string) {
    const cc = (path: string, init: RequestInit = {}) =>
      fetch(`${fx.server.httpUrl}/6/v2/api/${path}`, {
        ...init,
        headers: { 'content-type': 'application/json', ...init.headers },
      }).then(async (r) => ({ status: r.status, json: (await r.json()) as CcAnswer }));
    const [username, password] = ADMIN.split(':');
    const token = await cc('oauth/token', {
      method: 'POST',
      body: JSON.stringify({ grant_type: 'password', username, password }),
    });
    const auth = { authorization: `Bearer ${token.json.access_token}` };
    const list = await cc('extensions', { headers: auth });
    const uuid = list.json.items!.find((e) => e.extension === ext)!.uuid;
    const res = await cc(`extensions/${uuid}`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ request: 'updateAgentState', name }),
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  }

  const logged = (source: string, event: string, who: string) =>
    page.locator(`#eventLog li[data-source="${source}"][data-event="${event}"]`, { hasText: who });

  test('drops both sockets while events happen: each missed event appears once, then the live stream', async () => {
    page = await fx.page('/console/');
    await page.locator('#connection', { hasText: 'voice events: subscribed to ALL' }).waitFor();
    await page.locator('#connection', { hasText: 'contact-center events: connected' }).waitFor();
    await page.locator('tr[data-agent="104"]').waitFor();
    const voiceSocket = sockets.find((s) => s.path.startsWith('/api/ws'));
    assert.match(voiceSocket?.path ?? '', /[?&]resume=true\b/, 'the voice socket asked for resume');
    const ccSocket = sockets.find((s) => s.path.startsWith('/6/v2/sock'));
    assert.match(ccSocket?.received[0] ?? '', /"resume":true/, 'the contact-center connect asked for resume');

    // One event each way before the drop, seen live.
    await voiceDnd('104', true);
    await logged('voice', 'dndOn', '104@1001').waitFor();

    assert.equal(dropServerSockets(sockets, '/api/ws'), 1);
    assert.equal(dropServerSockets(sockets, '/6/v2/sock'), 1);
    // Sent while the console has no socket: only the server's journal has them.
    await voiceDnd('104', false);
    await voiceDnd('105', true);
    await agentState('104', 'Break');

    await page.locator('#connection', { hasText: 'voice events: subscribed to ALL (resumed' }).waitFor();
    await page.locator('#connection', { hasText: 'contact-center events: connected (resumed' }).waitFor();
    const voiceAgain = sockets.filter((s) => s.path.startsWith('/api/ws')).at(-1)!;
    assert.match(voiceAgain.path, /[?&]resume=[0-9a-f-]{36}&after=\d+/);
    const ccAgain = sockets.filter((s) => s.path.startsWith('/6/v2/sock')).at(-1)!;
    assert.match(ccAgain.received[0] ?? '', /"resume":\{"session":"[^"]+","after":\{/);

    // Live again: these come after every replayed frame, so by then any duplicate would show.
    await voiceDnd('105', false);
    await agentState('104', 'Ready');
    await logged('voice', 'dndOff', '105@1001').waitFor();
    await page.locator('tr[data-agent="104"][data-agent-state="Ready"]').waitFor();
    await logged('cc', 'agent_state_changed', '104').nth(1).waitFor();
    await fx.shot(page, 'console-resumed');

    assert.equal(await logged('voice', 'dndOn', '104@1001').count(), 1, 'dndOn 104 (before the drop)');
    assert.equal(await logged('voice', 'dndOff', '104@1001').count(), 1, 'dndOff 104 (missed)');
    assert.equal(await logged('voice', 'dndOn', '105@1001').count(), 1, 'dndOn 105 (missed)');
    assert.equal(await logged('voice', 'dndOff', '105@1001').count(), 1, 'dndOff 105 (live)');
    assert.equal(
      await logged('cc', 'agent_state_changed', '104').count(),
      2,
      'agent 104: Break (missed) and Ready (live), once each',
    );
  });
});
