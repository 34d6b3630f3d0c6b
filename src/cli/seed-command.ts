import { DAY_MS } from '../contact-center/call-history.js';
import { MAX_SCALE } from '../directory/scale-world.js';
import { CALL_ID_EPOCH_MS } from '../core/ids.js';
import { ConfigError, parseConfig } from '../server/config.js';
import { createRuntime } from '../server/runtime.js';
import {
  DEFAULT_HISTORY_END,
  DEFAULT_SEED_VALUE,
  defaultRecords,
  type ScaleSeed,
  seedScaleWorld,
} from '../server/scale-seed.js';
import { createLogger } from '../server/serve.js';

/** The flags only `seed` takes; every other one is the server's (`--db`, `--database-url`, ...). */
const SEED_FLAGS = ['--scale', '--seed-value', '--history-days', '--history-records', '--history-end'];

/** `switchboard seed [--reset] [--scale N [--seed-value S] [--history-days D] [--history-records R] [--history-end DATE]]`. */
export async function seed(args: string[]): Promise<number> {
  const { own, rest } = split(args.filter((a) => a !== '--reset'));
  const reset = args.includes('--reset');
  const scale = own.has('--scale') ? scaleSeed(own) : undefined;
  if (!scale && own.size) throw new ConfigError(`${[...own.keys()][0]} goes with --scale`);
  const config = parseConfig(rest);
  const runtime = await createRuntime(
    // Seeding is a standalone visit: it refuses while a server (or a cluster) holds the database.
    { ...config, sim: false, seed: !scale, nats: [] },
    createLogger({ ...config, logLevel: 'warn' }),
  );
  try {
    if (scale) {
      if (!runtime.directory.isEmpty() && !reset)
        throw new ConfigError(
          'the database holds a world already: add --reset to replace it with the scale world',
        );
      const r = await seedScaleWorld(runtime, scale, (line) => console.log(line));
      console.log(
        `database seeded with the scale world ${scale.scale}: ${r.tenants} tenants, ${r.records} calls, ` +
          `in ${r.seconds.toFixed(1)} s`,
      );
    } else if (reset) {
      await runtime.resetToDemo();
      console.log('database reset to the demo world');
    } else {
      console.log(runtime.directory.tenants().length ? 'database already seeded' : 'database seeded');
    }
  } finally {
    await runtime.close();
  }
  return 0;
}

function split(args: string[]): { own: Map<string, string>; rest: string[] } {
  const own = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [name, inline] = args[i].includes('=')
      ? [args[i].slice(0, args[i].indexOf('=')), args[i].slice(args[i].indexOf('=') + 1)]
      : [args[i], undefined];
    if (!SEED_FLAGS.includes(name)) {
      rest.push(args[i]);
      continue;
    }
    const value = inline ?? args[++i];
    if (value === undefined) throw new ConfigError(`${name} needs a value`);
    own.set(name, value);
  }
  return { own, rest };
}

function whole(own: Map<string, string>, flag: string, min: number, max: number): number | undefined {
  const raw = own.get(flag);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max)
    throw new ConfigError(`${flag}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  return Number(raw);
}

function scaleSeed(own: Map<string, string>): ScaleSeed {
  const scale = whole(own, '--scale', 1, MAX_SCALE)!;
  const rawEnd = own.get('--history-end');
  let endMs = DEFAULT_HISTORY_END;
  if (rawEnd !== undefined) {
    endMs = /^\d{4}-\d{2}-\d{2}$/.test(rawEnd) ? Date.parse(`${rawEnd}T00:00:00Z`) : Number.NaN;
    if (Number.isNaN(endMs))
      throw new ConfigError(`--history-end: expected a date YYYY-MM-DD, got "${rawEnd}"`);
    // A history in the future would hold ids the server hands out later (core/ids.ts).
    if (endMs > Date.now()) throw new ConfigError(`--history-end: ${rawEnd} is in the future`);
  }
  const maxDays = Math.floor((endMs - CALL_ID_EPOCH_MS) / DAY_MS);
  if (maxDays < 1) throw new ConfigError('--history-end: the history must end after 2025-01-01');
  const days = whole(own, '--history-days', 1, maxDays) ?? Math.min(365, maxDays);
  const records = whole(own, '--history-records', 0, 100_000_000) ?? defaultRecords(scale, days);
  const seedValue = own.get('--seed-value') ?? DEFAULT_SEED_VALUE;
  if (seedValue === '') throw new ConfigError('--seed-value must not be empty');
  return { scale, seed: seedValue, days, endMs, records };
}
