import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Config } from '../../src/server/config.js';
import { ROOT } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export const CHROMIUM = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** Debian's Chromium, never a download. Missing Chromium fails the test with how to get it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM}. The browser tests need Debian's chromium: run scripts/install-system-deps.sh (as root) or set SWITCHBOARD_CHROMIUM.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface BrowserFixture {
  server: TestServer;
  browser: Browser;
  /** A fresh page at a laptop size that fails the test on any page error or console error. */
  page(path: string): Promise<Page>;
  shot(page: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** The console imports the typed client from /client/: built when missing or stale. */
function ensureWebClient(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-web-client.mjs'), '--if-stale', '--quiet'], {
    stdio: 'inherit',
  });
}

export async function browserFixture(
  overrides: Partial<Config> = {},
  /** Console errors a test causes on purpose (a server stopped under the page, say). */
  expectedErrors?: RegExp,
): Promise<BrowserFixture> {
  ensureWebClient();
  const server = await startTestServer(overrides);
  let browser: Browser;
  try {
    browser = await launchChromium();
  } catch (err) {
    await server.stop();
    throw err;
  }
  mkdirSync(ARTIFACTS, { recursive: true });
  const errors: string[] = [];
  // One page at a time: the voice WebSocket allows one connection per user and address.
  let current: BrowserContext | null = null;
  return {
    server,
    browser,
    async page(path) {
      await current?.close();
      const context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
      current = context;
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(`${path}: ${e.message}`));
      page.on('console', (m) => {
        if (
          m.type() === 'error' &&
          !/status of 4\d\d|Failed to load resource|Unexpected response code: 4\d\d/.test(m.text()) &&
          !expectedErrors?.test(m.text())
        )
          errors.push(`${path}: ${m.text()}`);
      });
      await page.goto(server.httpUrl + path);
      return page;
    },
    async shot(page, name) {
      await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    },
    async close() {
      await browser.close();
      await server.stop();
      if (errors.length) throw new Error(`page errors:\n${errors.join('\n')}`);
    },
  };
}

/** The text of the element a locator names ('' when it has none). */
export async function text(locator: { textContent(): Promise<string | null> }): Promise<string> {
  return (await locator.textContent()) ?? '';
}
