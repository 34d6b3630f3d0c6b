// The console follows both event streams through the typed client with resume on (issue 18): when
// its sockets drop (the server closes them, or the server restarts on the same database file)
// while things happen, the console reconnects, resumes, and shows each event it missed once;
// nothing twice at the seam. While the events happen the server refuses upgrades (429, as for a
// client's extra socket), so they are surely missed and come back only by the resume.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { dropServerSockets, type ServerSocket, trackSockets } from '../api/client/client-helpers.js';
import { basic, startTestServer, type TestServer } from '../helpers/server.js';
import { type BrowserFixture, browserFixture } from './browser.js';

const ADMIN = '100@1001:1234';

interface CcAnswer {
  access_token?: string;
  items?: { extension: string; uuid: string }[];
}

/** The tenant admin's requests, as another application would make them (not the console). */
function admin(baseUrl: string) {
  const cc = (path: string, init: RequestInit = {}) =>
    fetch(`${baseUrl}/6/v2/api/${path}`, {
      ...init,
      headers: { 'content-type': 'application/json', ...init.headers },
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as CcAnswer }));
  return {
    async dnd(ext: string, dnd: boolean) {
      const res = await fetch(`${baseUrl}/api/v1/tenants/1001/users/${ext}`, {
        method: 'PUT',
        headers: { authorization: basic(ADMIN), 'content-type': 'application/json' },
        body: JSON.stringify({ dnd }),
      });
      assert.equal(res.status, 200, await res.text());
    },
    async agentState(ext: string, name: string) {
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
    },
  };
}

/** Answers every upgrade 429 until the returned function is called; `tried` lists their paths. */
function refuseUpgrades(server: TestServer): { tried: string[]; release(): void } {
  const http = server.app.server;
  const accept = http.listeners('upgrade') as ((...args: unknown[]) => void)[];
  const tried: string[] = [];
  const refuse = (req: IncomingMessage, socket: Duplex) => {
    tried.push(req.url ?? '');
    socket.end('HTTP/1.1 429 Too Many Requests\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  };
  http.removeAllListeners('upgrade');
  http.on('upgrade', refuse);
  return {
    tried,
    release() {
      http.off('upgrade', refuse);
      for (const l of accept) http.on('upgrade', l);
    },
  };
}

async function openConsole(fx: BrowserFixture): Promise<Page> {
  const page = await fx.page('/console/');
  await page.locator('#connection', { hasText: 'voice events: subscribed to ALL' }).waitFor();
  await page.locator('#connection', { hasText: 'contact-center events: connected' }).waitFor();
  await page.locator('tr[data-agent="104"]').waitFor();
  return page;
}

const logged = (page: Page, source: string, event: string, who: string) =>
  page.locator(`#eventLog li[data-source="${source}"][data-event="${event}"]`, { hasText: who });

/**
 * What the console must show once `disrupt` (which drops its sockets and may restart the server)
 * made it miss: 104's DND off and 105's DND on (voice), 104 to Break (contact center); then the
 * live events after the resume.
 */
async function missAndResume(
  fx: BrowserFixture,
  sockets: () => ServerSocket[],
  disrupt: (during: () => Promise<void>) => Promise<void>,
) {
  const page = await openConsole(fx);
  const act = admin(fx.server.httpUrl);
  assert.match(sockets().find((s) => s.path.startsWith('/api/ws'))?.path ?? '', /[?&]resume=true\b/);
  assert.match(sockets().find((s) => s.path.startsWith('/6/v2/sock'))?.received[0] ?? '', /"resume":true/);
  await act.dnd('104', true);
  await logged(page, 'voice', 'dndOn', '104@1001').waitFor();

  await disrupt(async () => {
    await act.dnd('104', false);
    await act.dnd('105', true);
    await act.agentState('104', 'Break');
  });

  await page.locator('#connection', { hasText: 'voice events: subscribed to ALL (resumed' }).waitFor();
  await page.locator('#connection', { hasText: 'contact-center events: connected (resumed' }).waitFor();
  const voiceAgain = sockets()
    .filter((s) => s.path.startsWith('/api/ws'))
    .at(-1)!;
  assert.match(voiceAgain.path, /[?&]resume=[0-9a-f-]{36}&after=\d+/);
  const ccAgain = sockets()
    .filter((s) => s.path.startsWith('/6/v2/sock'))
    .at(-1)!;
  assert.match(ccAgain.received[0] ?? '', /"resume":\{"session":"[^"]+","after":\{/);

  // Live again: these follow every replayed frame, so by then a duplicate would show. (Meeting,
  // not Ready: a change whatever state the restarted server gave 104.)
  await act.dnd('105', false);
  await act.agentState('104', 'Meeting');
  await logged(page, 'voice', 'dndOff', '105@1001').waitFor();
  await logged(page, 'cc', 'agent_state_changed', '104').nth(1).waitFor();
  await page.locator('tr[data-agent="104"][data-agent-state="Meeting"]').waitFor();

  const count = (source: string, event: string, who: string) => logged(page, source, event, who).count();
  assert.equal(await count('voice', 'dndOn', '104@1001'), 1, 'dndOn 104 (before)');
  assert.equal(await count('voice', 'dndOff', '104@1001'), 1, 'dndOff 104 (missed)');
  assert.equal(await count('voice', 'dndOn', '105@1001'), 1, 'dndOn 105 (missed)');
  assert.equal(await count('voice', 'dndOff', '105@1001'), 1, 'dndOff 105 (live)');
  assert.equal(
    await count('cc', 'agent_state_changed', '104'),
    2,
    'agent 104: Break (missed) and Meeting (live), once each',
  );
  return page;
}

describe('live console: resume after the server dropped its sockets', () => {
  let fx: BrowserFixture;
  let sockets: ServerSocket[];
  before(async () => {
    fx = await browserFixture();
    sockets = trackSockets(fx.server);
  });
  after(async () => fx?.close());

  test('each missed event appears once, then the live stream', async () => {
    const page = await missAndResume(
      fx,
      () => sockets,
      async (during) => {
        const gate = refuseUpgrades(fx.server);
        assert.equal(dropServerSockets(sockets, '/api/ws'), 1);
        assert.equal(dropServerSockets(sockets, '/6/v2/sock'), 1);
        await during();
        // Both streams tried to come back while the events happened, and were refused.
        while (!(
          gate.tried.some((p) => p.startsWith('/api/ws')) &&
          gate.tried.some((p) => p.startsWith('/6/v2/sock'))
        ))
          await new Promise((r) => setTimeout(r, 50));
        gate.release();
      },
    );
    await fx.shot(page, 'console-resumed');
  });
});

describe('live console: resume across a restart of the server on the same database file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-console-resume-'));
  const db = join(dir, 'console.db');
  let fx: BrowserFixture;
  let restarted: TestServer | undefined;
  let first: ServerSocket[];
  let second: ServerSocket[] = [];
  before(async () => {
    // While the server is down the page's socket attempts fail, which Chromium logs.
    fx = await browserFixture({ db }, /WebSocket connection to .* failed/);
    first = trackSockets(fx.server);
  });
  after(async () => {
    await restarted?.stop();
    await fx?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('events missed before the restart are shown once, from the restarted server', async () => {
    await missAndResume(
      fx,
      () => [...first, ...second],
      async (during) => {
        refuseUpgrades(fx.server);
        dropServerSockets(first, '/api/ws');
        dropServerSockets(first, '/6/v2/sock');
        await during();
        await fx.server.close();
        restarted = await startTestServer({ db, port: Number(new URL(fx.server.httpUrl).port) });
        second = trackSockets(restarted);
      },
    );
  });
});

describe('live console: resume fails after the grace period', () => {
  let fx: BrowserFixture;
  let sockets: ServerSocket[];
  before(async () => {
    fx = await browserFixture();
    sockets = trackSockets(fx.server);
  });
  after(async () => fx?.close());

  test('the console says so and reads the state again: the missed change shows in the tables', async () => {
    const page = await openConsole(fx);
    const act = admin(fx.server.httpUrl);
    const gate = refuseUpgrades(fx.server);
    dropServerSockets(sockets, '/api/ws');
    dropServerSockets(sockets, '/6/v2/sock');
    await act.dnd('105', true);
    await act.agentState('104', 'Break');
    // The grace period (2 minutes by default) passes on the server's clock.
    const advanced = await fetch(`${fx.server.httpUrl}/sim/v1/clock/advance`, {
      method: 'POST',
      headers: { authorization: basic('admin:admin'), 'content-type': 'application/json' },
      body: JSON.stringify({ ms: 121_000 }),
    });
    assert.equal(advanced.status, 200);
    gate.release();

    await page
      .locator('#connection', { hasText: 'voice events: subscribed to ALL (could not resume' })
      .waitFor();
    await page
      .locator('#connection', { hasText: 'contact-center events: connected (could not resume' })
      .waitFor();
    await page.locator('tr[data-ext="105"] td.presence', { hasText: 'DND' }).waitFor();
    await page.locator('tr[data-agent="104"][data-agent-state="Break"]').waitFor();
    // The new sockets are subscribed again: live events arrive.
    await act.dnd('105', false);
    await logged(page, 'voice', 'dndOff', '105@1001').waitFor();
    assert.equal(await logged(page, 'voice', 'dndOn', '105@1001').count(), 0, 'a lost event is not invented');
  });
});
