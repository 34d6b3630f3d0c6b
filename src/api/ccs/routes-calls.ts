import type { FastifyInstance } from 'fastify';
import { normalizeNumber } from '../../directory/directory.js';
import type { Runtime } from '../../server/runtime.js';
import { ownTenant, principal, requirePermission } from './access.js';
import { badRequest, notFoundError, useSuccessTrue400 } from './errors.js';
import * as render from './render.js';
import { isTimeZone, parseLocal } from './tenant-time.js';
import { body } from './validate.js';

type CallParams = { Params: { id: string } };

const CALL_ID = /^\d{1,20}$/;

/** Call listing, search and control (19-27): tenant-level users. */
export function callRoutes(app: FastifyInstance, runtime: Runtime) {
  const { directory, contactCenter, callRecords } = runtime;

  /** Finished calls, newest first: durable records, plus ended calls whose record is still being written. */
  async function finishedCalls(
    tenantId: number,
    tz: string,
    range: { fromMs?: number; toMs?: number; limit?: number } = {},
  ) {
    const records = await callRecords.find({ tenantId, ...range });
    const recorded = new Set(records.map((r) => r.smdrCallId));
    const inRange = (at: number) =>
      (range.fromMs === undefined || at >= range.fromMs) && (range.toMs === undefined || at <= range.toMs);
    return [
      ...records.map((r) => ({ startedAt: r.startedAt, body: render.recordedCall(directory, r, tz) })),
      ...contactCenter
        .endedCalls(tenantId)
        .filter((c) => !recorded.has(c.smdrCallId) && inRange(c.startedAt))
        .map((c) => ({
          startedAt: c.startedAt,
          body: render.ccCallBody(directory, c, tz, c.endedAt ?? c.startedAt),
        })),
    ].sort((a, b) => b.startedAt - a.startedAt);
  }

  // 19
  app.get('/api/calls', async (req) => {
    useSuccessTrue400(req);
    const p = principal(req);
    requirePermission(p, 'Calls Listing View');
    const t = ownTenant(directory, p);
    const now = runtime.clock.now();
    const tz = t.cc.timezone;
    const live = contactCenter.liveCalls(t.tenantId);
    const liveIds = new Set(live.map((c) => c.smdrCallId));
    const finished = (await finishedCalls(t.tenantId, tz)).filter((c) => !liveIds.has(c.body.id));
    const items = [
      ...live.map((c) => render.liveCall(directory, c, tz, now)),
      ...finished.map((c) => c.body),
    ];
    return { success: true, total: String(items.length), items };
  });

  // 21 (static path: matched before calls/:id)
  app.get<{ Querystring: Record<string, string | undefined> }>('/api/calls/filter', async (req) => {
    useSuccessTrue400(req);
    const p = principal(req);
    requirePermission(p, 'Calls View');
    const t = ownTenant(directory, p);
    const q = req.query;
    const calling = q.calling_number?.trim() || undefined;
    const called = q.called_number?.trim() || undefined;
    if (!calling && !called) throw badRequest('calling_number or called_number is required');
    const tz = q.time_z?.trim() || 'UTC';
    if (!isTimeZone(tz)) throw badRequest('time_z is not a known time zone');
    const bound = (name: 'from_datetime' | 'to_datetime') => {
      const v = q[name];
      if (v === undefined || v === '') return undefined;
      const ms = parseLocal(v, tz);
      if (ms === null) throw badRequest(`${name} must be YYYY-MM-DDThh:mm:ss`);
      return ms;
    };
    const fromMs = bound('from_datetime');
    const toMs = bound('to_datetime');
    const same = (a: string, b?: string) => b === undefined || normalizeNumber(a) === normalizeNumber(b);
    const inRange = (at: number) =>
      (fromMs === undefined || at >= fromMs) && (toMs === undefined || at <= toMs);

    const now = runtime.clock.now();
    const live = contactCenter
      .liveCalls(t.tenantId)
      .filter((c) => same(c.calling.number, calling) && same(c.called.number, called) && inRange(c.startedAt))
      .map((c) => ({ startedAt: c.startedAt, body: render.liveCall(directory, c, tz, now) }));
    const records = (await finishedCalls(t.tenantId, tz, { fromMs, toMs, limit: 5000 })).filter(
      (c) => same(c.body.calling.number, calling) && same(c.body.called.number, called),
    );
    const best = [...live, ...records].sort((a, b) => b.startedAt - a.startedAt)[0];
    if (!best) throw notFoundError();
    return render.searchResult({ ...best.body, startedAt: best.startedAt }, tz);
  });

  // 20
  app.get<CallParams>('/api/calls/:id', async (req) => {
    useSuccessTrue400(req);
    const p = principal(req);
    requirePermission(p, 'Calls View');
    const t = ownTenant(directory, p);
    if (!CALL_ID.test(req.params.id)) throw badRequest('Invalid call id');
    const tz = t.cc.timezone;
    const live = contactCenter.liveCall(t.tenantId, req.params.id);
    if (live) return render.liveCall(directory, live, tz, runtime.clock.now());
    const r = await callRecords.get(t.tenantId, req.params.id);
    if (r) return { success: true, ...render.recordedCall(directory, r, tz) };
    const ended = contactCenter.endedCall(t.tenantId, req.params.id);
    if (!ended) throw notFoundError();
    return { success: true, ...render.ccCallBody(directory, ended, tz, ended.endedAt ?? ended.startedAt) };
  });

  // 22-27: selected by `request`.
  app.post<CallParams>('/api/calls/:id', async (req) => {
    const b = body(req.body);
    if (b.request === 'startSuppression') useSuccessTrue400(req);
    const p = principal(req);
    requirePermission(p, 'Call Control');
    const t = ownTenant(directory, p);
    const id = req.params.id;
    if (!CALL_ID.test(id)) throw badRequest('Invalid call id');
    switch (b.request) {
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
        contactCenter.waitTransfer(t.tenantId, id, b.target);
        break;
      case 'wait_redirect':
        contactCenter.waitRedirect(t.tenantId, id, b.target);
        break;
      case 'wait_kill':
        contactCenter.waitKill(t.tenantId, id);
        break;
      default:
        throw badRequest(
          'request must be startSuppression, stopSuppression, kill, wait_transfer, wait_redirect or wait_kill',
        );
    }
    return { success: true };
  });
}
