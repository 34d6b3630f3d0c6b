/** Contact-center wire shapes: the only place they are made. */
import type {
  AgentSnapshot,
  CcCallSnapshot,
  QueueStats,
  Recording,
  TimelineEntry,
} from '../../contact-center/types.js';
import { hms, hmsSteady } from '../../core/durations.js';
import { DEMO } from '../../directory/demo-ids.js';
import type { Directory } from '../../directory/directory.js';
import type {
  Extension,
  OutboundQueue,
  PresenceOption,
  Product,
  Role,
  Tenant,
} from '../../directory/model.js';
import type { CallRecord } from '../../store/call-records.js';
import type { TextCounts } from '../../store/text-counters.js';
import type { CallRecordData } from '../../switch/types.js';
import type { AgentState } from './agent-schemas.js';
import type { Call, CallSearchResult, LiveCall } from './call-schemas.js';
import type { QueueStatisticsData } from './event-schemas.js';
import type { KeptWindow } from '../route-core/kept-window.js';
import type {
  ExtensionItem,
  OutboundQueueItem,
  PresenceOption as PresenceOptionWire,
  Product as ProductWire,
  Role as RoleWire,
  TenantDetails,
  TenantItem,
  TextCount,
  VoiceQueueItem,
} from './tenant-schemas.js';
import { isoLocal, isoZoned, tenantTimestamp } from './tenant-time.js';

export const list = <T>(items: T[]) => ({ success: true, total: String(items.length), items });

const ref = (uuid: string, name: string) => ({ uuid, name });
const TELCO = ref(DEMO.telcoUuid, 'Switchboard Telco');
const PLATFORM = ref(DEMO.platformUuid, 'Switchboard');
const GATEWAY = ref(DEMO.gatewayUuid, 'Default Gateway');

export const product = (p: Product): ProductWire => ({ uuid: p.id, name: p.name, notes: p.notes });
export const role = (r: Role): RoleWire => ({ uuid: r.id, name: r.name });
export const presenceOption = (o: PresenceOption): PresenceOptionWire => ({
  uuid: o.id,
  type: o.type,
  name: o.name,
});
export const extensionItem = (e: Extension): ExtensionItem => ({
  uuid: e.uuid,
  lastname: e.lastName,
  firstname: e.firstName,
  extension: e.ext,
});

function products(directory: Directory, t: Tenant) {
  return t.cc.productIds.flatMap((id) => {
    const p = directory.get('product', id);
    return p ? [product(p)] : [];
  });
}

export function tenantItem(directory: Directory, t: Tenant): TenantItem {
  const tz = t.cc.timezone;
  return {
    uuid: t.cc.uuid,
    telco_id: TELCO,
    status: t.cc.status,
    platform_id: PLATFORM,
    platform_tenant_url: t.webLoginUrl ?? '',
    platform_tenant_name: t.name,
    platform_tenant_id: String(t.tenantId),
    platform_authentication: true,
    product_name: t.cc.productName,
    product_id: products(directory, t),
    modified_on: tenantTimestamp(t.cc.modifiedOn, tz),
    created_on: tenantTimestamp(t.cc.createdOn, tz),
    modified_by: t.cc.modifiedBy,
    cross_reference: [],
    created_by: t.cc.createdBy,
  };
}

export function tenantDetails(directory: Directory, t: Tenant): TenantDetails {
  const exts = directory.extensions(t.tenantId);
  const agents = exts.filter((e) => e.agent?.isAgent);
  const count = (f: (e: Extension) => boolean) => agents.filter(f).length;
  const tz = t.cc.timezone;
  return {
    success: true,
    uuid: t.cc.uuid,
    name: t.cc.name,
    platform_tenant_name: t.name,
    platform_tenant_url: t.webLoginUrl ?? '',
    platform_tenant_id: String(t.tenantId),
    sid: t.cc.sid,
    product_name: t.cc.productName,
    telco_id: TELCO,
    platform_id: PLATFORM,
    default_gateway_id: GATEWAY,
    product_id: products(directory, t),
    status: t.cc.status,
    platform_authentication: true,
    platform_auth_editable: false,
    platform_crplatform_enabled: false,
    nightly_call_details: false,
    sftp_export: false,
    cleanup_sftp: false,
    sftp_dir_configured: false,
    ve_ivr: 'false',
    site_ip_address: '',
    timezone: tz,
    default_signin_method: 'extension',
    default_outgoing_clid: t.did ?? '',
    service_extension: '',
    rec_quality: 'standard',
    ...t.cc.limits,
    agent_billing: t.cc.agentBilling,
    rec_extn_count: count((e) => e.agent!.recordingType !== 'None'),
    monitor_ext_count: count((e) => e.agent!.monitor),
    max_queues_count: exts.filter((e) => e.type === 'acdExt').length,
    max_agents_count: agents.length,
    group_agent_count: exts
      .filter((e) => e.type === 'groupExt')
      .reduce((n, g) => n + (g.group?.members.length ?? 0), 0),
    chat_licenses_count: count((e) => e.agent!.maxChats > 0),
    multimedia_licenses_count: count((e) => e.agent!.multimediaEnabled),
    modified_on: tenantTimestamp(t.cc.modifiedOn, tz),
    created_on: tenantTimestamp(t.cc.createdOn, tz),
    created_by: t.cc.createdBy,
  };
}

export const acdItem = (t: Tenant, e: Extension): VoiceQueueItem => ({
  uuid: e.uuid,
  type: 'voice_queues',
  tenant_id: t.cc.uuid,
  name: e.name,
  extension: e.ext,
  alternate_extensions: [] as string[],
});

export const outboundQueueItem = (t: Tenant, q: OutboundQueue): OutboundQueueItem => ({
  uuid: q.id,
  type: 'voice_oqs',
  tenant_id: t.cc.uuid,
  name: q.name,
  extension: q.extension,
  alternate_extensions: [] as string[],
});

export const textCount = (t: Tenant, c: TextCounts): TextCount => ({
  tenant_sid: t.cc.sid,
  tenant_name: t.cc.name,
  tenant_id: t.cc.uuid,
  sms_stats: { out_sms: c.out_sms, out_mms: c.out_mms, in_sms: c.in_sms, in_mms: c.in_mms },
});

export function agentState(a: AgentSnapshot, directory: Directory, now: number): AgentState {
  const queue = a.queueExt ? directory.extension(a.tenantId, a.queueExt) : undefined;
  return {
    queue_state: {
      state: a.queueState,
      queue: queue?.name ?? '',
      duration: hms(now - a.queueStateSince),
      ...(a.queueCallId ? { call_id: a.queueCallId } : {}),
    },
    phone_state: { state: a.phoneState, duration: hms(now - a.phoneStateSince) },
    consecutive_missed: a.consecutiveMissed,
    agent_state: {
      state: { type: a.agentState.type, name: a.agentState.name },
      duration: hms(now - a.agentStateSince),
    },
  };
}

/** The clock times around `now` within which `agentState(a, …)` reads as it does at `now`. */
export function agentStateSteady(a: AgentSnapshot, now: number): KeptWindow {
  const q = hmsSteady(a.queueStateSince, now);
  const p = hmsSteady(a.phoneStateSince, now);
  const s = hmsSteady(a.agentStateSince, now);
  return { from: Math.max(q.from, p.from, s.from), until: Math.min(q.until, p.until, s.until) };
}

// ---- calls ------------------------------------------------------------------------------------

const timeline = (entries: TimelineEntry[], tz: string) =>
  entries.map((t) => ({ type: t.type, timestamp: isoLocal(t.at, tz), event: t.text }));

function recordings(list: Recording[], tz: string, now: number) {
  return list.map((r) => ({
    start_time: isoLocal(r.startAt, tz),
    stop_time: r.stopAt === undefined ? '' : isoLocal(r.stopAt, tz),
    markers: r.markers.map((m) => ({
      type: m.type,
      time: isoLocal(m.at, tz),
      offset: hms(m.at - r.startAt),
    })),
    filename: r.filename,
    extension: r.ext,
    duration: hms((r.stopAt ?? now) - r.startAt),
  }));
}

function callSource(directory: Directory, c: CcCallSnapshot) {
  if (c.acdExt) {
    const acd = directory.extension(c.tenantId, c.acdExt);
    return { type: 'acd', uuid: acd?.uuid ?? '', name: acd?.name ?? '', extension: c.acdExt };
  }
  if (c.outboundQueueId) {
    const oq = directory.outboundQueues(c.tenantId).find((q) => q.id === c.outboundQueueId);
    return {
      type: 'outbound_queue',
      uuid: c.outboundQueueId,
      name: oq?.name ?? '',
      extension: oq?.extension ?? '',
    };
  }
  return {};
}

function destination(c: CcCallSnapshot): Call['call_destination'] {
  if (c.agentExt && c.direction === 'in')
    return { type: 'phone', number: c.agentExt, name: c.agentName ?? '' };
  return { type: 'phone', number: c.called.number, name: c.called.name };
}

/** A contact-center call, in the list item shape (finished, or the base of the in-progress shape). */
export function ccCallBody(directory: Directory, c: CcCallSnapshot, tz: string, now: number): Call {
  const end = c.endedAt ?? now;
  return {
    id: c.smdrCallId,
    time: isoLocal(c.startedAt, tz),
    outcome:
      c.status === 'ended'
        ? c.answeredAt !== undefined
          ? 'Answered'
          : 'Abandoned'
        : c.answeredAt !== undefined
          ? 'Answered'
          : 'Progress',
    direction: c.direction,
    duration: c.answeredAt !== undefined ? hms(end - c.answeredAt) : '',
    wait_time: c.direction === 'in' ? hms(c.waitMs) : '',
    hold_time: hms(c.holdMs),
    is_recorded: c.recordings.length > 0 ? 'true' : 'false',
    fe_xfr: '',
    commit_account_code: '',
    vrq_ques_ans: [] as unknown[],
    calling: c.calling,
    called: c.called,
    call_source: callSource(directory, c),
    call_details: timeline(c.timeline, tz),
    call_destination: destination(c),
    recordings: recordings(c.recordings, tz, now),
  };
}

/** An in-progress contact-center call (`in_ecr`). */
export function liveCall(directory: Directory, c: CcCallSnapshot, tz: string, now: number): LiveCall {
  const agentUuid = c.agentExt ? (directory.extension(c.tenantId, c.agentExt)?.uuid ?? '') : '';
  const acdUuid = c.acdExt ? (directory.extension(c.tenantId, c.acdExt)?.uuid ?? '') : '';
  return {
    ...ccCallBody(directory, c, tz, now),
    wait_time: '',
    recordings: [] as unknown[],
    type: 'in_ecr',
    success: true,
    is_suppressed: c.isSuppressed,
    is_recording: c.isRecording,
    caller_uuid: c.direction === 'out' ? agentUuid : '',
    callee_uuid: c.direction === 'out' ? '' : agentUuid || acdUuid,
    being_marked: c.isRecording && c.isSuppressed,
  };
}

const segmentDetails = (segments: CallRecordData['segments'] | undefined, tz: string) =>
  (segments ?? []).map((s) => ({ type: s.kind, timestamp: isoLocal(s.at, tz), event: s.text }));

/** The extension uuid of an agent party (`101@1001`), else empty. */
function agentUuid(directory: Directory, tenantId: number, account: string | undefined): string {
  const ext = account?.slice(0, account.indexOf('@'));
  const e = ext ? directory.extension(tenantId, ext) : undefined;
  return e?.agent?.isAgent ? e.uuid : '';
}

/** What the switch's record says of a call the contact center did not hold. */
interface SwitchCallParts {
  id: string;
  startedAt: number;
  outcome: string;
  direction: Call['direction'];
  duration: string;
  calling: { number: string; name: string };
  called: { number: string; name: string };
  segments: CallRecordData['segments'] | undefined;
}

/** A call the contact center did not hold, in the list item shape. */
function switchCallBody(p: SwitchCallParts, tz: string): Call {
  return {
    id: p.id,
    time: isoLocal(p.startedAt, tz),
    outcome: p.outcome,
    direction: p.direction,
    duration: p.duration,
    wait_time: '',
    hold_time: '',
    is_recorded: 'false',
    fe_xfr: '',
    commit_account_code: '',
    vrq_ques_ans: [] as unknown[],
    calling: p.calling,
    called: p.called,
    call_source: {},
    call_details: segmentDetails(p.segments, tz),
    call_destination: { type: 'phone', ...p.called },
    recordings: [],
  };
}

/**
 * An in-progress call that is not a contact-center call (between extensions, to voicemail...),
 * from the switch's record of it so far: the finished record's shape, `Progress` until answered,
 * plus the in-progress fields. `caller_uuid` and `callee_uuid` name the agents among the parties.
 */
export function liveSwitchCall(directory: Directory, d: CallRecordData, tz: string, now: number): LiveCall {
  const answered = d.answeredAt !== undefined;
  const body = switchCallBody(
    {
      id: d.smdrCallId,
      startedAt: d.startedAt,
      outcome: answered ? 'Answered' : 'Progress',
      direction: d.direction,
      duration: answered ? hms(now - d.answeredAt!) : '',
      calling: { number: d.from.number, name: d.from.name },
      called: { number: d.to.number, name: d.to.name },
      segments: d.segments,
    },
    tz,
  );
  return {
    ...body,
    wait_time: '',
    recordings: [] as unknown[],
    type: 'in_ecr',
    success: true,
    is_suppressed: false,
    is_recording: false,
    caller_uuid: agentUuid(directory, d.tenantId, d.from.account),
    callee_uuid: agentUuid(directory, d.tenantId, d.to.account),
    being_marked: false,
  };
}

/** A finished call from its durable record. */
export function recordedCall(directory: Directory, r: CallRecord, tz: string): Call {
  const data = r.data as unknown as CallRecordData & { cc?: CcCallSnapshot };
  if (data.cc)
    return ccCallBody(directory, { ...data.cc, endedAt: data.cc.endedAt ?? r.endedAt }, tz, r.endedAt);
  const answered = r.answeredAt !== null;
  return switchCallBody(
    {
      id: r.smdrCallId,
      startedAt: r.startedAt,
      outcome: r.outcome,
      direction: data.direction ?? 'in',
      duration: answered ? hms(r.endedAt - r.answeredAt!) : '',
      calling: { number: data.from?.number ?? r.from, name: data.from?.name ?? '' },
      called: { number: data.to?.number ?? r.to, name: data.to?.name ?? '' },
      segments: data.segments,
    },
    tz,
  );
}

export function searchResult(
  call: {
    id: string;
    startedAt: number;
    outcome: string;
    duration: string;
    calling: { number: string; name: string };
  },
  tz: string,
): CallSearchResult {
  return {
    success: true,
    call_details: {
      time: isoZoned(call.startedAt, tz),
      outcome: call.outcome,
      id: call.id,
      fe_xfr: {},
      duration: call.duration,
      calling: call.calling,
    },
  };
}

export const queueStats = (t: Tenant, acd: Extension | undefined, s: QueueStats): QueueStatisticsData => ({
  queue_uuid: acd?.uuid ?? '',
  queue_name: acd?.name ?? '',
  extension: s.acdExt,
  waiting: s.waiting,
  longest_wait: hms(s.longestWaitMs),
  longest_wait_seconds: Math.floor(s.longestWaitMs / 1000),
  agents_signed_in: s.agentsSignedIn,
  agents_ready: s.agentsReady,
  agents_busy: s.agentsBusy,
  tenant_id: t.cc.uuid,
});
