// Seeded scale worlds for the benchmarks (`seed --scale N` of the built tree), kept between runs in
// the system's temporary folder: seeding a million calls takes minutes. A world is used again only
// when its scale, history, schema and generator (their files in dist/) are the same;
// `BENCH_RESEED=1` seeds it anew. A seed that did not finish is never used: it is written under another name first.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
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
  // The schema and the generator as built: a change of either seeds anew.
  const built = ['store/migrations', 'directory', 'contact-center']
    .flatMap((d) =>
      readdirSync(join(ROOT, 'dist', d), { recursive: true, withFileTypes: true }).map((f) =>
        join(f.parentPath, f.name),
      ),
    )
    .filter((f) => f.endsWith('.js') && /migrations|scale-world|demo|call-history|history-records/.test(f))
    .sort()
    .map((f) => readFileSync(f));
  const key = createHash('sha256').update(Buffer.concat(built)).digest('hex').slice(0, 12);
  const file = join(DIR, `scale-${scale}-${records ?? 'default'}-${key}.db`);
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
