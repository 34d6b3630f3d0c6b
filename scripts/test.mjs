#!/usr/bin/env node
// Runs node:test over every *.test.ts under the given folders (default: test/), through tsx.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { clusterPass } from './cluster-run.mjs';
import { ensureTestServices } from './test-services.mjs';

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
// The console loads the typed client as served from dist/web-client: built once here, before
// test files run side by side (the browser fixture builds it too, for a file run alone).
if (files.some(needsBrowser)) {
  const { buildWebClient, webClientStale } = await import('./build-web-client.mjs');
  if (webClientStale()) await buildWebClient();
}
// PostgreSQL and NATS for the cluster suites: started for this run where the machine runs none.
const services = await ensureTestServices();
for (const n of services.notes) console.log(`test services: ${n}`);
const ci = Boolean(process.env.CI && process.env.CI !== 'false');

// SWITCHBOARD_TEST_CLUSTER=N given: only the cluster run of the given files, on N nodes.
// Unset: the normal run, then the cluster pass (two nodes) over the black-box suites among the
// files (scripts/cluster-run.mjs says which, and which are excluded and why). 0: no cluster pass.
const asked = process.env.SWITCHBOARD_TEST_CLUSTER;
let status;
if (asked === undefined || asked === '') {
  status = Math.max(runFiles(files, {}), await clusterRun(2));
} else if (Number(asked) > 0) {
  status = await clusterRun(Number(asked), true);
} else {
  status = runFiles(files, {});
}
services.stop();
process.exit(status);

/** The cluster pass: 0 when it passed or had nothing to run (or was skipped, outside CI). */
async function clusterRun(nodes, asked = false) {
  const { run, skipped } = clusterPass(files);
  if (run.length === 0) {
    if (asked) console.log('cluster pass: no black-box suite (test/api) among the files');
    return 0;
  }
  // The test services' own look: PostgreSQL and NATS answer where the tests will look.
  const missing = services.notes.filter((n) => /^no |did not start/.test(n));
  if (missing.length) {
    const why = missing.join('; ');
    if (ci) {
      console.error(`cluster pass cannot run: ${why}; CI runs every suite`);
      return 1;
    }
    console.log(`cluster pass skipped: ${why}`);
    return 0;
  }
  console.log(
    `\ncluster pass: ${run.length} black-box suites on ${nodes} nodes behind a random proxy` +
      (skipped.length ? ` (${skipped.length} excluded, scripts/cluster-run.mjs says why)` : ''),
  );
  const t0 = Date.now();
  const code = runFiles(run, { SWITCHBOARD_TEST_CLUSTER: String(nodes) }, ['--test-timeout=300000']);
  console.log(
    `cluster pass: ${code === 0 ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - t0) / 1000)} s`,
  );
  return code;
}

/**
 * One node:test run over `list`. A second reporter writes TAP to a file: node:test (22) reports a
 * failed suite hook (the contract check runs in `after` hooks) as `not ok` but neither counts it
 * as a failed test nor exits non-zero, so the run is judged from the TAP lines as well.
 */
function runFiles(list, env, extra = []) {
  const tap = join(mkdtempSync(join(tmpdir(), 'switchboard-test-')), 'report.tap');
  const res = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...extra,
      ...flags,
      ...list,
    ],
    { stdio: 'inherit', env: { ...process.env, ...services.env, ...env, NODE_ENV: 'test' } },
  );
  const notOk = existsSync(tap)
    ? readFileSync(tap, 'utf8')
        .split('\n')
        .filter((l) => /^\s*not ok \d+/.test(l) && !/# (TODO|SKIP)/i.test(l))
    : [];
  if (res.status === 0 && notOk.length) {
    console.error(
      `\n${notOk.length} test or suite failed (a hook included):\n${notOk.map((l) => l.trim()).join('\n')}`,
    );
    return 1;
  }
  return res.status ?? 1;
}
