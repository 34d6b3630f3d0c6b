import { callHistory, DAY_MS, type HistoryOptions } from '../contact-center/call-history.js';
import { scaleWorld } from '../directory/scale-world.js';
import type { CallRecord } from '../store/call-records.js';
import type { Runtime } from './runtime.js';

/**
 * `switchboard seed --scale N`: the scale world (the demo world N times) with its call history,
 * written in one transaction of multi-row INSERTs, then the planner's statistics refreshed so the
 * call list and search take their indexes from the first request.
 */
export interface ScaleSeed extends HistoryOptions {
  scale: number;
}

/** Calls a year per copy of the demo world: about 1,000,000 at N = 16. */
export const RECORDS_PER_SCALE_YEAR = 62_500;
/** The default history is the year 2025 (ids begin on 2025-01-01: core/ids.ts). */
export const DEFAULT_HISTORY_END = Date.UTC(2026, 0, 1);
export const DEFAULT_SEED_VALUE = 'switchboard';

export const defaultRecords = (scale: number, days: number) =>
  Math.round((RECORDS_PER_SCALE_YEAR * scale * days) / 365);

export interface ScaleSeedResult {
  tenants: number;
  entities: number;
  records: number;
  seconds: number;
}

export async function seedScaleWorld(
  runtime: Runtime,
  o: ScaleSeed,
  progress: (line: string) => void = () => {},
): Promise<ScaleSeedResult> {
  const t0 = performance.now();
  const { adminPassword: admin, operatorPassword: operator } = runtime.config;
  const world = scaleWorld(o.scale, { admin, operator });
  await runtime.resetTo(world);
  const tenants = runtime.directory.tenants().length;
  progress(`scale ${o.scale}: ${tenants} tenants, ${world.length} records of the directory`);
  const from = new Date(o.endMs - o.days * DAY_MS).toISOString().slice(0, 10);
  const to = new Date(o.endMs - DAY_MS).toISOString().slice(0, 10);
  progress(`call history: ${o.records} calls from ${from} to ${to} (seed "${o.seed}")`);
  let written = 0;
  const reported = function* (records: Iterable<CallRecord>) {
    for (const r of records) {
      yield r;
      if (++written % 100_000 === 0) progress(`  ${written} calls written`);
    }
  };
  const records = await runtime.callRecords.writeMany(reported(callHistory(runtime.directory, o)));
  await runtime.callRecords.analyze();
  return { tenants, entities: world.length, records, seconds: (performance.now() - t0) / 1000 };
}
