#!/usr/bin/env node
// Runs node:test over every *.test.ts under the given folders (default: test/), through tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
let files = [];
function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.test.ts')) files.push(p);
  }
}
for (const r of roots.length ? roots : ['test']) {
  if (statSync(r).isDirectory()) walk(r);
  else files.push(r);
}
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
// The browser tests need Chromium (test/browser/browser.ts says where). Without it they are
// skipped in one line; under CI, which must run every suite, that is a failure.
const chromium = process.env.SWITCHBOARD_CHROMIUM ?? '/usr/bin/chromium';
const needsBrowser = (f) => f.split(sep).includes('browser');
if (files.some(needsBrowser) && !existsSync(chromium)) {
  const why = `no Chromium at ${chromium} (scripts/install-system-deps.sh installs it as root; or set SWITCHBOARD_CHROMIUM)`;
  if (process.env.CI && process.env.CI !== 'false') {
    console.error(`browser tests cannot run: ${why}; CI runs every suite`);
    process.exit(1);
  }
  console.log(`browser tests skipped: ${why}`);
  files = files.filter((f) => !needsBrowser(f));
  if (files.length === 0) process.exit(0);
}
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...flags, ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(res.status ?? 1);
