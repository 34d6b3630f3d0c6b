#!/usr/bin/env node
// `npm run bench [name...]`: builds, then runs every bench/<name>.bench.ts (or only those named:
// rest, reads, scale, voice-events, cc-fanout, engine, cold-start, continuity, webhooks; `cluster` names every
// cluster-*.bench.ts, which need PostgreSQL and NATS). Each prints a table, writes
// bench/results/<name>.json and exits non-zero when it misses a budget of docs/decisions.md §1.12.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const all = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const asked = process.argv
  .slice(2)
  .flatMap((n) => (n === 'cluster' ? all.filter((b) => b.startsWith('cluster-')) : [n]));
const unknown = asked.filter((n) => !all.includes(n));
if (unknown.length) {
  console.error(`unknown benchmark ${unknown.join(', ')} (known: ${all.join(', ')})`);
  process.exit(2);
}
const build = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
  stdio: 'inherit',
});
if (build.status !== 0) process.exit(build.status ?? 1);
const failed = [];
for (const name of asked.length ? asked : all) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.bench.ts`], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(name);
}
console.log(
  failed.length ? `\nbudget missed or failed: ${failed.join(', ')}` : '\nevery benchmark met its budgets',
);
process.exit(failed.length ? 1 : 0);
