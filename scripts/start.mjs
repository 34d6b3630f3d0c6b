#!/usr/bin/env node
// `npm start`: build when the compiled tree is missing or older than the sources, then run the CLI.
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
const firstBuild = !existsSync(entry);
if (firstBuild || newest('src') > statSync(entry).mtimeMs) {
  // tsc prints nothing while it works (tens of seconds on a small machine): say what is happening.
  console.error(
    firstBuild
      ? 'Building Switchboard (first start; this takes a moment)…'
      : 'Sources changed since the last build: rebuilding Switchboard…',
  );
  const tsc = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
}
// Same process, so signals reach the server directly.
await import(new URL(`../${entry}`, import.meta.url).href);
