import { CALL_ID_EPOCH_MS } from '../core/ids.js';
import { type Random, seededRandom } from '../core/random.js';
import { zoneOffsetMinutes } from '../core/zone-time.js';
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';
import type { CallRecord } from '../store/call-records.js';
import { type CallPlan, type HistoryAgent, type HistoryParty, historyRecord } from './history-records.js';

/**
 * A generated call history for a world (`seed --scale`, issue 19): calls between the tenant's users,
 * to hunt groups, out to and in from outside numbers (into ACDs, directly or through the auto
 * attendant), and agents dialing through outbound queues, each recorded as the engine records it
 * (history-records.ts). Deterministic: the same directory and options give the same records.
 *
 * Calls fall on business hours of the tenant's time zone (a tenth outside them), fewer on weekends,
 * spread over tenants by their number of users. Ids are call ids of the instant each call started
 * (core/ids.ts), so they never meet the ids a server hands out later.
 */
export interface HistoryOptions {
  /** The seed: the same one gives the same history. */
  seed: string;
  /** The history is the `days` days before `endMs`. */
  days: number;
  endMs: number;
  /** Calls in all (exactly), over every tenant and day. */
  records: number;
}

export const DAY_MS = 86_400_000;

/** The parties a tenant's calls are made of. */
interface Cast {
  tenantId: number;
  timezone: string;
  users: HistoryParty[];
  groups: { group: HistoryParty; members: HistoryParty[] }[];
  /** DIDs that ring an ACD, directly or through an auto attendant's menu. */
  queues: {
    dialed: string;
    acd: HistoryParty;
    agents: HistoryAgent[];
    menu?: { attendant: HistoryParty; digit: string };
  }[];
  dialers: { agent: HistoryAgent; queue: { id: string; name: string; callerId: string } }[];
}

const party = (e: Extension): HistoryParty => ({ ext: e.ext, name: e.name });

function castOf(directory: Directory, tenantId: number): Cast {
  const exts = directory.extensions(tenantId).filter((e) => e.enabled);
  const byExt = new Map(exts.map((e) => [e.ext, e]));
  const agentOf = (ext: string): HistoryAgent[] => {
    const e = byExt.get(ext);
    return e?.type === 'userExt' && e.agent?.isAgent
      ? [{ ...party(e), recordingType: e.agent.recordingType }]
      : [];
  };
  const acdAt = (ext: string | undefined) => {
    const acd = ext === undefined ? undefined : byExt.get(ext);
    const agents = acd?.acd?.agents.flatMap(agentOf) ?? [];
    return acd?.type === 'acdExt' && agents.length ? { acd: party(acd), agents } : undefined;
  };
  const queues: Cast['queues'] = [];
  for (const did of directory.list('did', tenantId)) {
    const target = byExt.get(did.targetExt);
    const direct = acdAt(target?.ext);
    if (direct) queues.push({ dialed: did.number, ...direct });
    for (const [digit, action] of Object.entries(target?.autoAttendant?.menu ?? {})) {
      const via = action.action === 'transferToAcd' ? acdAt(action.target) : undefined;
      if (via) queues.push({ dialed: did.number, ...via, menu: { attendant: party(target!), digit } });
    }
  }
  const agents = exts.flatMap((e) => agentOf(e.ext));
  return {
    tenantId,
    timezone: directory.tenant(tenantId)?.cc.timezone ?? 'UTC',
    users: exts.filter((e) => e.type === 'userExt').map(party),
    groups: exts
      .filter((e) => e.type === 'groupExt' && e.group)
      .map((g) => ({
        group: party(g),
        members: g.group!.members.flatMap((m) =>
          byExt.get(m)?.type === 'userExt' ? [party(byExt.get(m)!)] : [],
        ),
      }))
      .filter((g) => g.members.length > 0),
    queues,
    dialers: directory.outboundQueues(tenantId).flatMap((queue) =>
      agents.map((agent) => ({
        agent,
        queue: { id: queue.id, name: queue.name, callerId: queue.callerId },
      })),
    ),
  };
}

type Kind = CallPlan['kind'];
/** A planned call before it has its id (ids follow the order of the day's calls). */
type Unnumbered = CallPlan extends infer P ? (P extends CallPlan ? Omit<P, 'smdrCallId'> : never) : never;
/** How often each kind of call happens, where the tenant has what it needs. */
const MIX: [Kind, number][] = [
  ['internal', 30],
  ['group', 5],
  ['outbound', 20],
  ['queue', 37],
  ['dial', 8],
];

export function* callHistory(directory: Directory, o: HistoryOptions): Generator<CallRecord> {
  const startMs = o.endMs - o.days * DAY_MS;
  if (!Number.isInteger(o.days) || o.days < 1)
    throw new RangeError('days must be a whole number of at least 1');
  if (startMs < CALL_ID_EPOCH_MS)
    throw new RangeError('the history would start before 2025-01-01, where call ids begin');
  const rng = seededRandom(o.seed);
  const casts = directory
    .tenants()
    .map((t) => castOf(directory, t.tenantId))
    .filter((c) => c.users.length > 1);
  if (!casts.length || o.records <= 0) return;
  const counts = callCounts(rng, casts, o, startMs);
  let lastMs = -1;
  let seq = 0;
  for (let d = 0; d < o.days; d++) {
    const dayStart = startMs + d * DAY_MS;
    const plans: Unnumbered[] = [];
    const zones = new Map<string, { open: number; close: number }>();
    casts.forEach((cast, i) => {
      let hours = zones.get(cast.timezone);
      if (!hours) zones.set(cast.timezone, (hours = businessHours(cast.timezone, dayStart)));
      for (let k = 0; k < counts[d][i]; k++) plans.push(plan(rng, cast, callStart(rng, dayStart, hours)));
    });
    plans.sort((a, b) => a.startedAt - b.startedAt);
    for (const p of plans) {
      seq = p.startedAt === lastMs ? seq + 1 : 0;
      lastMs = p.startedAt;
      const smdrCallId = String(((p.startedAt - CALL_ID_EPOCH_MS) * 1000 + seq) * 16);
      yield historyRecord({ ...p, smdrCallId } as CallPlan);
    }
  }
}

/**
 * Calls per day and tenant, summing to exactly `records`: each tenant's share by its users, each
 * day by its weekday (Saturday and Sunday quieter), each count jittered by up to a quarter.
 */
function callCounts(rng: Random, casts: Cast[], o: HistoryOptions, startMs: number): number[][] {
  const dayWeight = (d: number) => [0.25, 1, 1, 1, 1, 1, 0.35][new Date(startMs + d * DAY_MS).getUTCDay()];
  const users = casts.map((c) => c.users.length);
  const cells: { d: number; i: number; x: number }[] = [];
  for (let d = 0; d < o.days; d++)
    for (let i = 0; i < casts.length; i++)
      cells.push({ d, i, x: dayWeight(d) * users[i] * (0.75 + rng.next() / 2) });
  const total = cells.reduce((s, c) => s + c.x, 0);
  const counts = Array.from({ length: o.days }, () => new Array<number>(casts.length).fill(0));
  let given = 0;
  for (const c of cells) {
    c.x = (c.x / total) * o.records;
    counts[c.d][c.i] = Math.floor(c.x);
    given += counts[c.d][c.i];
  }
  // Largest remainders first; ties in cell order, so the result stays deterministic.
  const order = cells.map((c, n) => ({ n, r: c.x - Math.floor(c.x) })).sort((a, b) => b.r - a.r || a.n - b.n);
  for (let k = 0; k < o.records - given; k++) counts[cells[order[k].n].d][cells[order[k].n].i]++;
  return counts;
}

/** 08:00 to 18:00 local time of the day that starts at `dayStart` (UTC), as UTC instants. */
function businessHours(timezone: string, dayStart: number): { open: number; close: number } {
  const offset = zoneOffsetMinutes(dayStart + DAY_MS / 2, timezone) * 60_000;
  return { open: dayStart + 8 * 3_600_000 - offset, close: dayStart + 18 * 3_600_000 - offset };
}

function callStart(rng: Random, dayStart: number, h: { open: number; close: number }): number {
  return rng.chance(0.1) ? dayStart + rng.int(DAY_MS) : h.open + rng.int(h.close - h.open);
}

/** A conversation: 15 s and an exponential tail (mean 2.5 min), at most an hour. */
const talkMs = (rng: Random) => 15_000 + Math.min(3_600_000, Math.round(-Math.log(1 - rng.next()) * 150_000));

function plan(rng: Random, c: Cast, startedAt: number): Unnumbered {
  const able: [Kind, number][] = MIX.filter(([k]) =>
    k === 'group'
      ? c.groups.length > 0
      : k === 'queue'
        ? c.queues.length > 0
        : k === 'dial'
          ? c.dialers.length > 0
          : true,
  );
  let roll = rng.next() * able.reduce((s, [, w]) => s + w, 0);
  const kind = able.find(([, w]) => (roll -= w) < 0)?.[0] ?? able[0][0];
  const common = { tenantId: c.tenantId, startedAt, hangsUp: rng.chance(0.5) ? 'caller' : 'callee' } as const;
  const outside = () => `+1555000${rng.between(1000, 9999)}`;
  const answeredAfter = (from: number, ringMs: [number, number]) => from + rng.between(...ringMs);
  switch (kind) {
    case 'internal': {
      const caller = rng.pick(c.users);
      const callee = rng.pick(c.users.filter((u) => u !== caller));
      if (rng.chance(0.2))
        return { ...common, kind, caller, callee, endedAt: startedAt + rng.between(5_000, 25_000) };
      const answeredAt = answeredAfter(startedAt, [2_000, 15_000]);
      return { ...common, kind, caller, callee, answeredAt, endedAt: answeredAt + talkMs(rng) };
    }
    case 'group': {
      const { group, members } = rng.pick(c.groups);
      const answeredAt = answeredAfter(startedAt, [2_000, 15_000]);
      const caller = rng.pick(c.users);
      return {
        ...common,
        kind,
        caller,
        group,
        answerer: rng.pick(members),
        answeredAt,
        endedAt: answeredAt + talkMs(rng),
      };
    }
    case 'outbound': {
      const caller = rng.pick(c.users);
      if (rng.chance(0.15))
        return {
          ...common,
          kind,
          caller,
          number: outside(),
          endedAt: startedAt + rng.between(5_000, 40_000),
        };
      const answeredAt = answeredAfter(startedAt, [2_000, 20_000]);
      return { ...common, kind, caller, number: outside(), answeredAt, endedAt: answeredAt + talkMs(rng) };
    }
    case 'queue': {
      const q = rng.pick(c.queues);
      const queuedAt = q.menu ? startedAt + rng.between(3_000, 10_000) : startedAt;
      const base = {
        ...common,
        kind,
        caller: outside(),
        dialed: q.dialed,
        ...(q.menu ? { menu: { ...q.menu, at: queuedAt } } : {}),
        acd: q.acd,
        agent: rng.pick(q.agents),
        offeredAt: queuedAt + rng.int(3_000),
      };
      if (rng.chance(0.12))
        return { ...base, hangsUp: 'caller', endedAt: base.offeredAt + rng.between(2_000, 90_000) };
      const answeredAt = answeredAfter(base.offeredAt, [1_000, 15_000]);
      return { ...base, answeredAt, endedAt: answeredAt + talkMs(rng) };
    }
    case 'dial': {
      const { agent, queue } = rng.pick(c.dialers);
      const answeredAt = answeredAfter(startedAt, [2_000, 20_000]);
      return {
        ...common,
        kind,
        agent,
        queue,
        number: outside(),
        answeredAt,
        endedAt: answeredAt + talkMs(rng),
      };
    }
  }
}
