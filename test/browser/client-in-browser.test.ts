// The typed client's built ESM JavaScript in a browser page, as the console would load it: built
// here with tsc from packages/client, served by the page's own origin (a route of the page), and
// imported with nothing else. It must open the voice socket with the page's WebSocket (the Basic
// credentials as a subprotocol, docs/browser-tools.md), and resume by itself after the server
// dropped it: the events sent into the dropped connection arrive once, in order.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { ROOT } from '../helpers/cli.js';
import { presence } from '../helpers/resume.js';
import { dropServerSockets, type ServerSocket, trackSockets } from '../api/client/client-helpers.js';
import { type BrowserFixture, browserFixture } from './browser.js';

const run = promisify(execFile);
/** Where the page finds the client: any path of the server's origin will do. */
const CLIENT_PATH = '/typed-client/';

/** packages/client's main entry as ESM JavaScript, without declarations: the folder of index.js. */
async function buildClient(work: string): Promise<string> {
  const config = join(work, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({
      extends: join(ROOT, 'tsconfig.json'),
      compilerOptions: { rootDir: ROOT, outDir: join(work, 'out'), sourceMap: false, declaration: false },
      include: [],
      files: [join(ROOT, 'packages/client/src/index.ts')],
    }),
  );
  await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', config], {
    maxBuffer: 16 * 1024 * 1024,
  });
  return join(work, 'out/packages/client/src');
}

interface PageState {
  events: { sequence: number; subscriptionSetId: string }[];
  connected: { webSocketId: string; reconnect: boolean; resumed?: boolean }[];
}

describe('the typed client in a browser page', () => {
  let fx: BrowserFixture;
  let sockets: ServerSocket[];
  let page: Page;
  const work = mkdtempSync(join(tmpdir(), 'sb-web-client-'));

  before(async () => {
    const built = await buildClient(work);
    fx = await browserFixture();
    sockets = trackSockets(fx.server);
    page = await fx.page('/healthz');
    await page.route(`**${CLIENT_PATH}**`, (route) => {
      const file = new URL(route.request().url()).pathname.slice(CLIENT_PATH.length);
      let body: string;
      try {
        body = readFileSync(join(built, file), 'utf8');
      } catch {
        return route.fulfill({ status: 404, body: 'not found' });
      }
      return route.fulfill({ status: 200, contentType: 'text/javascript', body });
    });
  });
  after(async () => {
    await page?.evaluate(() =>
      (globalThis as unknown as { client?: { close(): Promise<void> } }).client?.close(),
    );
    await fx?.close();
    rmSync(work, { recursive: true, force: true });
  });

  const state = () => page.evaluate(() => (globalThis as unknown as { state: PageState }).state);
  const until = (what: string, fn: string) =>
    page.waitForFunction(fn, undefined, { timeout: 15_000 }).catch(() => {
      throw new Error(`timed out waiting for ${what}`);
    });

  test('loads, opens the voice socket through the page, and resumes after a drop: nothing lost, nothing twice', async () => {
    const setId = await page.evaluate(
      async ({ path, base }) => {
        const { VoiceClient } = await import(`${path}index.js`);
        const client = new VoiceClient({
          url: base,
          username: '100@1001',
          password: '1234',
          socket: { reconnect: { initialDelayMs: 20, maxDelayMs: 200 } },
        });
        const state: PageState = { events: [], connected: [] };
        Object.assign(globalThis, { client, state });
        const stream = await client.events();
        stream.on('event', (e: PageState['events'][number]) => state.events.push(e));
        stream.on('connected', (i: PageState['connected'][number]) => state.connected.push(i));
        const set = await stream.subscribe({ presence: ['102@1001'] });
        return set.id as string;
      },
      { path: CLIENT_PATH, base: fx.server.httpUrl },
    );

    const first = sockets.find((s) => s.path.startsWith('/api/ws'));
    assert.ok(first, 'the page opened the voice socket');
    assert.match(first.path, /[?&]resume=true\b/, 'with resume');
    assert.match(String(first.headers['sec-websocket-protocol']), /\bswitchboard, basic\.[\w-]+/);
    assert.equal(first.headers.authorization, undefined, 'a page cannot send Authorization');

    presence(fx.server, 2);
    await until('2 events', 'window.state.events.length >= 2');
    assert.equal(dropServerSockets(sockets, '/api/ws'), 1);
    // Sent into the dropped connection: lost on the wire, kept by the server.
    presence(fx.server, 3);
    await until('the reconnect', 'window.state.connected.length >= 1');
    const [reconnected] = (await state()).connected;
    assert.deepEqual(
      { reconnect: reconnected.reconnect, resumed: reconnected.resumed },
      { reconnect: true, resumed: true },
    );
    assert.match(sockets.at(-1)!.path, /[?&]resume=[0-9a-f-]{36}&after=\d+/);
    presence(fx.server, 1);
    await until('6 events', 'window.state.events.length >= 6');

    const { events } = await state();
    assert.equal(events.length, 6, 'no event twice');
    const seqs = events.map((e) => e.sequence);
    for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1] + 1, `consecutive: ${seqs}`);
    assert.ok(events.every((e) => e.subscriptionSetId === setId));
  });
});
