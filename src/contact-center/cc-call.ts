import { invalid } from '../core/errors.js';
import type { CcCallSnapshot, CcCallStatus, Recording, TimelineEntry } from './types.js';

type Init = Pick<
  CcCallSnapshot,
  'smdrCallId' | 'tenantId' | 'direction' | 'calling' | 'called' | 'startedAt' | 'acdExt' | 'outboundQueueId'
>;

/** A call's whole state as plain data (JSON). */
export type DurableCcCall = Pick<
  CcCall,
  | 'status'
  | 'agentExt'
  | 'agentName'
  | 'queuedAt'
  | 'answeredAt'
  | 'endedAt'
  | 'waitMs'
  | 'holdMs'
  | 'holdStart'
  | 'recordingType'
  | 'isSuppressed'
  | 'timeline'
  | 'recordings'
  | 'endReason'
  | 'missedBy'
> & { init: Init };

/**
 * One contact-center call: its place in the queue, its timeline, recordings and suppression.
 *
 * Recording rules (docs/contact-center.md): the handling agent's `recording_type` decides.
 * Mandatory starts a recording at answer. On Demand starts suppressed with no recording; lifting
 * the suppression (`stopSuppression`) is the request that starts one. None never records.
 */
export class CcCall {
  status: CcCallStatus;
  agentExt?: string;
  agentName?: string;
  queuedAt?: number;
  answeredAt?: number;
  endedAt?: number;
  waitMs = 0;
  holdMs = 0;
  holdStart?: number;
  recordingType: CcCallSnapshot['recordingType'] = 'None';
  isSuppressed = false;
  readonly timeline: TimelineEntry[] = [];
  readonly recordings: Recording[] = [];
  /** Why the call ended, when the contact center ended it. */
  endReason?: string;
  /** The agent offered this call who did not answer, in order. */
  readonly missedBy: string[] = [];

  constructor(
    readonly init: Init,
    status: CcCallStatus,
  ) {
    this.status = status;
  }

  get smdrCallId() {
    return this.init.smdrCallId;
  }
  get tenantId() {
    return this.init.tenantId;
  }
  get acdExt() {
    return this.init.acdExt;
  }
  set acdExt(ext: string | undefined) {
    this.init.acdExt = ext;
  }
  get isWaiting() {
    return this.status === 'waiting' || this.status === 'offered';
  }
  get isRecording() {
    const r = this.recordings.at(-1);
    return !!r && r.stopAt === undefined;
  }

  log(type: string, at: number, text: string): void {
    this.timeline.push({ type, at, text });
  }

  enterQueue(acdExt: string, at: number): void {
    this.acdExt = acdExt;
    this.status = 'waiting';
    this.queuedAt = at;
  }

  leaveQueue(at: number): void {
    if (this.queuedAt !== undefined) this.waitMs += at - this.queuedAt;
    this.queuedAt = undefined;
  }

  hold(at: number): void {
    this.holdStart ??= at;
  }

  resume(at: number): void {
    if (this.holdStart !== undefined) this.holdMs += at - this.holdStart;
    this.holdStart = undefined;
  }

  /** At answer (inbound) or far-end answer (outbound). Returns true when a recording started. */
  connect(agentExt: string, recordingType: CcCallSnapshot['recordingType'], at: number): boolean {
    this.status = 'connected';
    this.agentExt = agentExt;
    this.answeredAt ??= at;
    this.recordingType = recordingType;
    if (recordingType === 'Mandatory') {
      this.startRecording(at);
      return true;
    }
    this.isSuppressed = recordingType === 'On Demand';
    return false;
  }

  /** startSuppression: pauses the recording and leaves a marker. */
  suppress(at: number): void {
    if (this.status !== 'connected') throw invalid('CALL_NOT_CONNECTED', 'Call is not connected');
    if (this.recordingType === 'None') throw invalid('NOT_RECORDED', 'Call is not recorded');
    if (this.isSuppressed) throw invalid('ALREADY_SUPPRESSED', 'Recording is already suppressed');
    this.isSuppressed = true;
    this.recordings.at(-1)?.markers.push({ type: 'suppression_start', at });
  }

  /** stopSuppression: resumes the recording (starts it, for On Demand) and leaves a marker. Returns true when a recording started. */
  unsuppress(at: number): boolean {
    if (this.status !== 'connected') throw invalid('CALL_NOT_CONNECTED', 'Call is not connected');
    if (this.recordingType === 'None') throw invalid('NOT_RECORDED', 'Call is not recorded');
    if (!this.isSuppressed) throw invalid('NOT_SUPPRESSED', 'Recording is not suppressed');
    this.isSuppressed = false;
    const started = !this.isRecording;
    if (started) this.startRecording(at);
    this.recordings.at(-1)!.markers.push({ type: 'suppression_stop', at });
    return started;
  }

  /** Closes the open recording, if any. Returns true when one was open. */
  stopRecording(at: number): boolean {
    const r = this.recordings.at(-1);
    if (!r || r.stopAt !== undefined) return false;
    r.stopAt = at;
    return true;
  }

  end(at: number): void {
    this.leaveQueue(at);
    this.resume(at);
    this.stopRecording(at);
    this.status = 'ended';
    this.endedAt ??= at;
  }

  private startRecording(at: number): void {
    const ext = this.agentExt ?? '';
    this.recordings.push({
      ext,
      filename: `${this.smdrCallId}-${ext}-${this.recordings.length + 1}.wav`,
      startAt: at,
      markers: [],
    });
  }

  /** Everything this call holds, for the database (failover; see `restore`). */
  durable(): DurableCcCall {
    const { timeline: _t, recordings: _r, missedBy: _m, init, ...fields } = this;
    return {
      ...fields,
      init: { ...init },
      timeline: this.timeline.map((t) => ({ ...t })),
      recordings: this.recordings.map((r) => ({ ...r, markers: r.markers.map((m) => ({ ...m })) })),
      missedBy: [...this.missedBy],
    };
  }

  /** The call again, as `durable` wrote it. */
  static restore(d: DurableCcCall): CcCall {
    const call = new CcCall({ ...d.init }, d.status);
    const { init: _i, timeline, recordings, missedBy, ...fields } = d;
    Object.assign(call, fields);
    call.timeline.push(...timeline);
    call.recordings.push(...recordings);
    call.missedBy.push(...missedBy);
    return call;
  }

  snapshot(now: number): CcCallSnapshot {
    return {
      ...this.init,
      status: this.status,
      agentExt: this.agentExt,
      agentName: this.agentName,
      queuedAt: this.queuedAt,
      answeredAt: this.answeredAt,
      endedAt: this.endedAt,
      waitMs: this.waitMs + (this.queuedAt !== undefined ? now - this.queuedAt : 0),
      holdMs: this.holdMs + (this.holdStart !== undefined ? now - this.holdStart : 0),
      recordingType: this.recordingType,
      isRecording: this.isRecording,
      isSuppressed: this.isSuppressed,
      timeline: this.timeline.map((t) => ({ ...t })),
      recordings: this.recordings.map((r) => ({ ...r, markers: r.markers.map((m) => ({ ...m })) })),
    };
  }
}
