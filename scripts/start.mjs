#!/usr/bin/env node
// `npm start`: build when the compiled tree (or the console's copy of the typed client) is missing
// or older than the sources, then run the CLI.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}
const entry = 'dist/cli/main.js';
const tscBin = 'node_modules/typescript/bin/tsc';
const firstBuild = !existsSync(entry);
if (firstBuild || newest('src') > statSync(entry).mtimeMs) {
  if (!existsSync(tscBin)) {
    // `npm ci --omit=dev` leaves no compiler: build before pruning (docs/deploy.md).
    console.error(
      'switchboard: dist/ is missing or older than src/, and TypeScript is not installed: run `npm ci && npm run build` (then `npm prune --omit=dev` if you like)',
    );
    process.exit(2);
  }
  // tsc prints nothing while it works (tens of seconds on a small machine): say what is happening.
  console.error(
    firstBuild
      ? 'Building Switchboard (first start; this takes a moment)…'
      : 'Sources changed since the last build: rebuilding Switchboard…',
  );
  const tsc = spawnSync(process.execPath, [tscBin, '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
// The console's copy of the typed client (served under /client/), when its sources changed.
const { buildWebClient, webClientStale } = await import('./build-web-client.mjs');
if (webClientStale()) {
  if (!existsSync(tscBin)) {
    console.error(
      'switchboard: dist/web-client/ is older than packages/client/src/ and TypeScript is not installed: run `npm ci && npm run build`',
    );
    process.exit(2);
  }
  await buildWebClient();
}
// Same process, so signals reach the server directly.
await import(new URL(`../${entry}`, import.meta.url).href);
