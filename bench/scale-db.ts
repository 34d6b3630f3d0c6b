// Seeded scale worlds for the benchmarks (`seed --scale N` of the built tree), kept between runs in
// the system's temporary folder: seeding a million calls takes minutes. A world is used again only
// when its scale, history and schema (the migrations of dist/) are the same; `BENCH_RESEED=1` seeds
// it anew. A seed that did not finish is never used: it is written under another name first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './lib.js';

const DIR = join(tmpdir(), 'switchboard-bench-scale');

export interface ScaleDb {
  file: string;
  /** Seconds the seed took, when it was seeded in this run. */
  seededS?: number;
}

/** The SQLite file of the scale world `scale` with its default history (or `records` calls). */
export async function scaleDb(scale: number, records?: number): Promise<ScaleDb> {
  const { migrationProvider } = (await import(join(ROOT, 'dist/store/migrations/index.js'))) as {
    migrationProvider: { getMigrations(): Promise<Record<string, unknown>> };
  };
  const schema = Object.keys(await migrationProvider.getMigrations()).at(-1);
  const file = join(DIR, `scale-${scale}-${records ?? 'default'}-${schema}.db`);
  if (existsSync(file) && process.env.BENCH_RESEED !== '1') return { file };
  mkdirSync(DIR, { recursive: true });
  const partial = `${file}.partial`;
  for (const f of [partial, `${partial}-wal`, `${partial}-shm`, file]) rmSync(f, { force: true });
  console.log(`seeding the scale world ${scale} into ${file} (once; minutes at 16)`);
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      'dist/cli/main.js',
      'seed',
      '--scale',
      String(scale),
      ...(records === undefined ? [] : ['--history-records', String(records)]),
      '--db',
      partial,
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) throw new Error(`seed --scale ${scale} failed (${r.status})`);
  renameSync(partial, file);
  return { file, seededS: (performance.now() - t0) / 1000 };
}
