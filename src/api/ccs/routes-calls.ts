import type { FastifyInstance } from 'fastify';
import { normalizeNumber } from '../../directory/directory.js';
import type { CcRuntime } from './cc-runtime.js';
import { ownTenant, principal } from './access.js';
import {
  CallAnswerSchema,
  CallControlRequestSchema,
  CallIdParamsSchema,
  CallListSchema,
  CallSearchQuerySchema,
  CallSearchResultSchema,
} from './call-schemas.js';
import { ccRoute } from './cc-route.js';
import { SuccessAnswerSchema } from './common-schemas.js';
import { badRequest, notFoundError } from './errors.js';
import * as render from './render.js';
import type { CallRecordQuery } from '../../store/call-records.js';
import { isTimeZone, parseLocal } from './tenant-time.js';

// One ccRoute per spec endpoint (as routes-tenants.ts): the declarations share a shape, not logic.
const TAGS = ['calls'];

/** The call search's match: `wanted` absent, or the same digits (`+1 (555) 000-1111` is `+15550001111`). */
const sameNumber = (number: string, wanted?: string) =>
  wanted === undefined || normalizeNumber(number) === normalizeNumber(wanted);
const INVALID_CALL_ID = 'Invalid call id';

/** Call listing, search and control (19-27): tenant-level users. */
export function callRoutes(app: FastifyInstance, runtime: CcRuntime) {
  const { directory, contactCenter, callRecords } = runtime;

  /**
   * Finished calls, newest first: records not yet written (read first: one leaves only once
   * stored), then the store's newest window (`RECENT_WINDOW`, or `limit`), read through an index.
   * `calling`/`called` narrow both to the calls shown with that number.
   */
  async function finishedCalls(tenantId: number, tz: string, q: Omit<CallRecordQuery, 'tenantId'> = {}) {
    const inRange = (at: number) =>
      (q.fromMs === undefined || at >= q.fromMs) && (q.toMs === undefined || at <= q.toMs);
    const unwritten = contactCenter
      .unwrittenRecords(tenantId)
      .filter(
        (r) =>
          inRange(r.startedAt) &&
          sameNumber(r.calling ?? r.from, q.calling) &&
          sameNumber(r.called ?? r.to, q.called),
      );
    const records = await callRecords.find({ tenantId, ...q });
    const recorded = new Set(records.map((r) => r.smdrCallId));
    return [...records, ...unwritten.filter((r) => !recorded.has(r.smdrCallId))]
      .map((r) => ({ startedAt: r.startedAt, body: render.recordedCall(directory, r, tz) }))
      .sort((a, b) => b.startedAt - a.startedAt);
  }

  /** Every live call of the tenant, newest first, in the in-progress shape: contact-center calls and the others. */
  function liveCalls(tenantId: number, tz: string, now: number) {
    const calls = contactCenter.liveCalls(tenantId).map((c) => ({
      startedAt: c.startedAt,
      calling: c.calling.number,
      called: c.called.number,
      body: render.liveCall(directory, c, tz, now),
    }));
    const others = contactCenter.otherLiveCalls(tenantId).map((r) => ({
      startedAt: r.startedAt,
      calling: r.from.number,
      called: r.to.number,
      body: render.liveSwitchCall(directory, r, tz, now),
    }));
    return [...calls, ...others].sort((a, b) => b.startedAt - a.startedAt);
  }

  /** A call of the tenant that is over: no longer live, and ended in memory or on record. */
  async function hasEnded(tenantId: number, id: string): Promise<boolean> {
    if (contactCenter.liveCall(tenantId, id) || contactCenter.otherLiveCall(tenantId, id)) return false;
    if (contactCenter.unwrittenRecord(tenantId, id)) return true;
    return (await callRecords.get(tenantId, id)) !== undefined;
  }

  // 19
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/calls',
    cached: 'calls',
    permissions: ['Calls Listing View'],
    badRequestBody: 'successTrue',
    doc: {
      operationId: 'listCalls',
      summary: "List the tenant's calls (#19)",
      description: 'Permissions: API, Calls Listing View; tenant-level users only.',
      tags: TAGS,
      ok: { description: 'In-progress calls, then finished calls, newest first.', schema: CallListSchema },
    },
    handler: async (req) => {
      const p = principal(req);
      const t = ownTenant(directory, p);
      const tz = t.cc.timezone;
      const live = liveCalls(t.tenantId, tz, runtime.clock.now());
      const liveIds = new Set(live.map((c) => c.body.id));
      const finished = (await finishedCalls(t.tenantId, tz)).filter((c) => !liveIds.has(c.body.id));
      const items = [...live.map((c) => c.body), ...finished.map((c) => c.body)];
      return { success: true, total: String(items.length), items };
    },
  });

  // 21 (static path: matched before calls/:id)
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/calls/filter',
    cached: 'calls',
    permissions: ['Calls View'],
    badRequestBody: 'successTrue',
    doc: {
      operationId: 'searchCalls',
      summary: 'Find the most recent matching call (#21)',
      description:
        'Permissions: API, Calls View; tenant-level users only. At least one of `calling_number` and ' +
        '`called_number` is required (400 otherwise); the date-times narrow the search and are read in ' +
        '`time_z`. Empty parameters count as absent.',
      tags: TAGS,
      query: CallSearchQuerySchema,
      notFound: 'No call matches.',
      ok: { description: 'The most recent matching call.', schema: CallSearchResultSchema },
    },
    handler: async (req, { query: q }) => {
      const p = principal(req);
      const t = ownTenant(directory, p);
      const calling = q.calling_number?.trim() || undefined;
      const called = q.called_number?.trim() || undefined;
      if (!calling && !called) throw badRequest('calling_number or called_number is required');
      const tz = q.time_z?.trim() || 'UTC';
      if (!isTimeZone(tz)) throw badRequest('time_z is not a known time zone');
      const bound = (name: 'from_datetime' | 'to_datetime') => {
        const v = q[name];
        if (v === undefined) return undefined;
        const ms = parseLocal(v, tz);
        if (ms === null) throw badRequest(`${name} must be YYYY-MM-DDThh:mm:ss`);
        return ms;
      };
      const fromMs = bound('from_datetime');
      const toMs = bound('to_datetime');
      const same = sameNumber;
      const inRange = (at: number) =>
        (fromMs === undefined || at >= fromMs) && (toMs === undefined || at <= toMs);

      const live = liveCalls(t.tenantId, tz, runtime.clock.now()).filter(
        (c) => same(c.calling, calling) && same(c.called, called) && inRange(c.startedAt),
      );
      // The newest match only, found through the number's index (not a scan of the history).
      const records = await finishedCalls(t.tenantId, tz, { calling, called, fromMs, toMs, limit: 1 });
      const best = [...live, ...records].sort((a, b) => b.startedAt - a.startedAt)[0];
      if (!best) throw notFoundError();
      return render.searchResult({ ...best.body, startedAt: best.startedAt }, tz);
    },
  });

  // 20
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/calls/:id',
    cached: 'calls',
    permissions: ['Calls View'],
    badRequestBody: 'successTrue',
    invalidParams: INVALID_CALL_ID,
    doc: {
      operationId: 'getCall',
      summary: 'Read one call (#20)',
      description: 'Permissions: API, Calls View; tenant-level users only.',
      tags: TAGS,
      params: CallIdParamsSchema,
      notFound: 'No call of the tenant has this id.',
      ok: { description: 'The call.', schema: CallAnswerSchema },
    },
    handler: async (req, { params }) => {
      const p = principal(req);
      const t = ownTenant(directory, p);
      const id = params.id!;
      const tz = t.cc.timezone;
      const now = runtime.clock.now();
      const live = contactCenter.liveCall(t.tenantId, id);
      if (live) return render.liveCall(directory, live, tz, now);
      const other = contactCenter.otherLiveCall(t.tenantId, id);
      if (other) return render.liveSwitchCall(directory, other, tz, now);
      const r = contactCenter.unwrittenRecord(t.tenantId, id) ?? (await callRecords.get(t.tenantId, id));
      if (!r) throw notFoundError();
      return { success: true, ...render.recordedCall(directory, r, tz) };
    },
  });

  // 22-27: selected by `request`.
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/calls/:id',
    permissions: ['Call Control'],
    badRequestBody: {
      successTrueFor: (b) => (b as { request?: unknown } | undefined)?.request === 'startSuppression',
    },
    invalidParams: INVALID_CALL_ID,
    doc: {
      operationId: 'controlCall',
      summary: 'Control a call (#22-#27)',
      description:
        'Permissions: API, Call Control; tenant-level users only.\n\n' +
        '- `startSuppression` / `stopSuppression` pause and resume the recording of a connected call ' +
        '(On Demand: `stopSuppression` starts it). A refused `startSuppression` answers 400 with ' +
        '`success: true`.\n' +
        '- `kill` ends the call.\n' +
        '- `wait_transfer`, `wait_redirect` and `wait_kill` act on a call waiting in a queue (400 when ' +
        'it is not waiting).\n' +
        '- `kill` and `wait_*` on a call that has ended answer 400 (`reason` `Call has ended`); an id no ' +
        'call of the tenant ever had answers 404.',
      tags: TAGS,
      params: CallIdParamsSchema,
      body: CallControlRequestSchema,
      notFound: 'No call of the tenant has this id.',
      ok: { description: 'Done.', schema: SuccessAnswerSchema },
    },
    handler: async (req, { params, body }) => {
      const p = principal(req);
      const t = ownTenant(directory, p);
      const id = params.id!;
      if (body.request !== 'startSuppression' && body.request !== 'stopSuppression') {
        // A call that has ended is known, so acting on it is a bad request, not an unknown call.
        if (await hasEnded(t.tenantId, id)) throw badRequest('Call has ended');
      }
      switch (body.request) {
        case 'startSuppression':
          contactCenter.startSuppression(t.tenantId, id);
          break;
        case 'stopSuppression':
          contactCenter.stopSuppression(t.tenantId, id);
          break;
        case 'kill':
          contactCenter.kill(t.tenantId, id);
          break;
        case 'wait_transfer':
          contactCenter.waitTransfer(t.tenantId, id, body.target);
          break;
        case 'wait_redirect':
          contactCenter.waitRedirect(t.tenantId, id, body.target);
          break;
        case 'wait_kill':
          contactCenter.waitKill(t.tenantId, id);
          break;
      }
      return { success: true };
    },
  });
}
