import type { RecordingType } from '../directory/model.js';
import type { CallRecord } from '../store/call-records.js';
import type { CallRecordData, CallSegment } from '../switch/types.js';
import type { CcCallSnapshot, Recording, TimelineEntry } from './types.js';

/**
 * One finished call of a generated history (`seed --scale`), written exactly as the switch and the
 * contact center record a call of that kind: the same fields in the same order, the same segment
 * and timeline texts. test/unit/contact-center/history-records.test.ts holds each kind against a
 * call made through the real engine.
 */

/** An extension of the tenant, as a party of a call. */
export interface HistoryParty {
  ext: string;
  /** Display name (`Bob Brown`, `Sales`). */
  name: string;
}

export interface HistoryAgent extends HistoryParty {
  recordingType: RecordingType;
}

interface Common {
  smdrCallId: string;
  tenantId: number;
  startedAt: number;
  endedAt: number;
  /** Who ended an answered call; an unanswered one is always ended by its caller. */
  hangsUp: 'caller' | 'callee';
}

export type CallPlan = Common &
  (
    | { kind: 'internal'; caller: HistoryParty; callee: HistoryParty; answeredAt?: number }
    | { kind: 'group'; caller: HistoryParty; group: HistoryParty; answerer: HistoryParty; answeredAt: number }
    | { kind: 'outbound'; caller: HistoryParty; number: string; answeredAt?: number }
    | {
        kind: 'queue';
        /** The outside caller's number, and the DID dialed. */
        caller: string;
        dialed: string;
        /** Through an auto attendant first: the caller pressed `digit` at `at`, then waited in the ACD. */
        menu?: { attendant: HistoryParty; digit: string; at: number };
        acd: HistoryParty;
        /** The agent offered the call (who answers it, if anyone does). */
        agent: HistoryAgent;
        offeredAt: number;
        answeredAt?: number;
      }
    | {
        kind: 'dial';
        agent: HistoryAgent;
        queue: { id: string; name: string; callerId: string };
        number: string;
        answeredAt: number;
      }
  );

type Endpoint = CallRecordData['from'];

export function historyRecord(p: CallPlan): CallRecord {
  const account = (x: HistoryParty) => `${x.ext}@${p.tenantId}`;
  const ext = (x: HistoryParty): Endpoint => ({ number: x.ext, name: x.name, account: account(x) });
  const outside = (n: string): Endpoint => ({ number: n, name: n });
  const label = (x: HistoryParty) => (x.name ? `${x.ext} ${x.name}` : x.ext);
  const segments: CallSegment[] = [];
  const seg = (at: number, kind: string, text: string, who?: HistoryParty | string) => {
    const s: CallSegment = { at, kind, text };
    if (typeof who === 'string') s.number = who;
    else if (who) s.account = account(who);
    segments.push(s);
  };
  const answered = p.answeredAt !== undefined;
  const by = (caller: string, callee: string) =>
    `Disconnected by ${answered && p.hangsUp === 'callee' ? callee : caller}`;
  /** A call between extensions (to one, or to a group one of whose members answers). */
  const inside = (caller: HistoryParty, target: HistoryParty, answerer: HistoryParty, calling: string) => {
    seg(p.startedAt, 'outbound', `Call from ${label(caller)} to ${target.ext}`, caller);
    seg(p.startedAt, 'called', calling, target);
    if (answered) seg(p.answeredAt!, 'answered', `Answered by ${label(answerer)}`, answerer);
    seg(p.endedAt, 'disconnected', by(label(caller), label(answerer)));
    const shape: [Endpoint, Endpoint, 'internal', Endpoint[]] = [
      ext(caller),
      ext(target),
      'internal',
      [ext(caller), ext(answerer)],
    ];
    return shape;
  };
  /** An extension's call to an outside number, as the switch logs it. */
  const dialedOut = (caller: HistoryParty, number: string) => {
    seg(p.startedAt, 'outbound', `Call from ${label(caller)} to ${number}`, caller);
    seg(p.startedAt, 'called', `Calling ${number}`, number);
    if (answered) seg(p.answeredAt!, 'answered', `Answered by ${number}`, number);
    seg(p.endedAt, 'disconnected', by(label(caller), number));
  };

  let from: Endpoint;
  let to: Endpoint;
  let direction: CallRecordData['direction'];
  let parties: Endpoint[];
  let acd: string | undefined;
  let cc: CcCallSnapshot | undefined;
  let outcome: CallRecordData['outcome'] = answered ? 'Answered' : 'Unanswered';
  switch (p.kind) {
    case 'internal':
      [from, to, direction, parties] = inside(p.caller, p.callee, p.callee, `Calling ${label(p.callee)}`);
      break;
    case 'group':
      [from, to, direction, parties] = inside(
        p.caller,
        p.group,
        p.answerer,
        `Calling group ${label(p.group)}`,
      );
      break;
    case 'outbound':
      [from, to, direction] = [ext(p.caller), { number: p.number, name: '' }, 'out'];
      parties = [ext(p.caller), outside(p.number)];
      dialedOut(p.caller, p.number);
      break;
    case 'dial': {
      from = { number: p.queue.callerId, name: p.queue.name, account: account(p.agent) };
      [to, direction] = [{ number: p.number, name: '' }, 'out'];
      parties = [from, outside(p.number)];
      dialedOut(p.agent, p.number);
      const timeline: TimelineEntry[] = [
        {
          type: 'outbound',
          at: p.startedAt,
          text: `Outbound call from ${label(p.agent)} through ${p.queue.name}`,
        },
        { type: 'called', at: p.startedAt, text: `Dialed ${p.number}` },
        { type: 'answered', at: p.answeredAt, text: `Answered by ${p.number}` },
      ];
      cc = ccSnapshot(
        p,
        {
          smdrCallId: p.smdrCallId,
          tenantId: p.tenantId,
          direction: 'out',
          calling: { number: p.queue.callerId, name: p.queue.name },
          called: { number: p.number, name: '' },
          startedAt: p.startedAt,
          outboundQueueId: p.queue.id,
        },
        { waitMs: 0, timeline, agentName: p.agent.name },
      );
      break;
    }
    case 'queue': {
      const target = p.menu?.attendant ?? p.acd;
      [from, to, direction] = [outside(p.caller), { ...ext(target), number: p.dialed }, 'in'];
      parties = [outside(p.caller), ext(p.agent)];
      acd = p.acd.ext;
      outcome = answered ? 'Answered' : 'Abandoned';
      const queuedAt = p.menu?.at ?? p.startedAt;
      seg(p.startedAt, 'inbound', `Inbound call from ${p.caller} to ${p.dialed}`, p.caller);
      if (p.menu) {
        seg(p.startedAt, 'menu', `Answered by auto attendant ${label(p.menu.attendant)}`, p.menu.attendant);
        seg(queuedAt, 'menu', `Caller pressed ${p.menu.digit}`);
        seg(queuedAt, 'redirected', `Menu transferred to ${label(p.acd)}`);
      }
      seg(queuedAt, 'queued', `Queued in ${label(p.acd)}`, p.acd);
      seg(p.offeredAt, 'offered', `Offered to ${label(p.agent)}`, p.agent);
      if (answered) seg(p.answeredAt!, 'answered', `Answered by ${label(p.agent)}`, p.agent);
      seg(p.endedAt, 'disconnected', by(p.caller, label(p.agent)));
      const timeline: TimelineEntry[] = [
        { type: 'inbound', at: queuedAt, text: `Inbound call from ${p.caller} to ${p.dialed}` },
        { type: 'called', at: queuedAt, text: `Queued in ${label(p.acd)}` },
        { type: 'offered', at: p.offeredAt, text: `Offered to ${label(p.agent)}` },
      ];
      if (answered)
        timeline.push({ type: 'answered', at: p.answeredAt!, text: `Answered by ${label(p.agent)}` });
      cc = ccSnapshot(
        p,
        {
          smdrCallId: p.smdrCallId,
          tenantId: p.tenantId,
          direction: 'in',
          calling: { number: p.caller, name: p.caller },
          called: { number: p.dialed, name: p.acd.name },
          startedAt: queuedAt,
          acdExt: p.acd.ext,
        },
        {
          waitMs: (p.answeredAt ?? p.endedAt) - queuedAt,
          timeline,
          agentName: answered ? p.agent.name : undefined,
        },
      );
      break;
    }
  }
  const data: CallRecordData & { cc?: CcCallSnapshot } = {
    smdrCallId: p.smdrCallId,
    tenantId: p.tenantId,
    from,
    to,
    direction,
    startedAt: p.startedAt,
    endedAt: p.endedAt,
    outcome,
    parties,
    segments,
  };
  if (answered) data.answeredAt = p.answeredAt;
  if (acd !== undefined) data.acd = acd;
  if (cc) data.cc = cc;
  return {
    smdrCallId: p.smdrCallId,
    tenantId: p.tenantId,
    startedAt: p.startedAt,
    answeredAt: p.answeredAt ?? null,
    endedAt: p.endedAt,
    from: from.number,
    to: to.number,
    outcome,
    calling: cc?.calling.number ?? from.number,
    called: cc?.called.number ?? to.number,
    data: data as unknown as Record<string, unknown>,
  };
}

type Init = Pick<
  CcCallSnapshot,
  'smdrCallId' | 'tenantId' | 'direction' | 'calling' | 'called' | 'startedAt' | 'acdExt' | 'outboundQueueId'
>;

/**
 * The contact center's details of a call it held, as `CcCall.snapshot` leaves them at the end:
 * the agent's recording type decides (Mandatory records from the answer to the end, On Demand
 * stays suppressed), and the timeline closes with the recording's stop and the disconnect.
 */
function ccSnapshot(
  p: Common & { agent: HistoryAgent; answeredAt?: number },
  init: Init,
  o: { waitMs: number; timeline: TimelineEntry[]; agentName?: string },
): CcCallSnapshot {
  const answered = p.answeredAt !== undefined;
  const recordingType = answered ? p.agent.recordingType : 'None';
  const recordings: Recording[] = [];
  const timeline = o.timeline;
  if (recordingType === 'Mandatory') {
    timeline.push({
      type: 'recording_started',
      at: p.answeredAt!,
      text: `Recording started for ${p.agent.ext}`,
    });
    recordings.push({
      ext: p.agent.ext,
      filename: `${p.smdrCallId}-${p.agent.ext}-1.wav`,
      startAt: p.answeredAt!,
      markers: [],
      stopAt: p.endedAt,
    });
    timeline.push({ type: 'recording_stopped', at: p.endedAt, text: 'Recording stopped' });
  }
  timeline.push({
    type: 'disconnected',
    at: p.endedAt,
    text: answered ? 'Disconnected (call ended)' : 'Disconnected while waiting (call ended)',
  });
  return {
    ...init,
    status: 'ended',
    agentExt: p.agent.ext,
    agentName: o.agentName,
    queuedAt: undefined,
    answeredAt: p.answeredAt,
    endedAt: p.endedAt,
    waitMs: o.waitMs,
    holdMs: 0,
    recordingType,
    isRecording: false,
    isSuppressed: recordingType === 'On Demand',
    timeline,
    recordings,
  };
}
