import { accountId, parseAccountId } from '../core/accounts.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { invalid, notFound } from '../core/errors.js';
import type { Directory } from '../directory/directory.js';
import type { Extension } from '../directory/model.js';
import type { Db } from '../store/database.js';
import { type TextCounts, TextCounterStore } from '../store/text-counters.js';
import type { AcdPort, QueuedCall } from '../switch/acd-port.js';
import type { SwitchEvent } from '../switch/types.js';
import { type AgentRecord, AgentBook, snapshotAgent } from './agent-book.js';
import { autoAwayState, resolveAgentState } from './agent-states.js';
import { CcCall } from './cc-call.js';
import { phoneStateOf } from './phone-state.js';
import type { AcdSwitch } from './switch-port.js';
import type {
  AgentSnapshot,
  AgentStateName,
  CallEventName,
  CcCallSnapshot,
  CcEvent,
  QueueStateName,
  QueueStats,
} from './types.js';

const ENDED_KEPT = 1000;

export interface ContactCenterDeps {
  directory: Directory;
  clock: Clock;
  switch: AcdSwitch;
  db: Db;
  publish: (event: CcEvent) => void;
}

/**
 * ACD queues and distribution, agent states, recordings and suppression, outbound dialing and
 * SMS/MMS counters. Driven by the switch through the ACD port and by its bus events; drives the
 * switch through its ACD commands. Time only through the clock.
 */
export class ContactCenter {
  private readonly sw: AcdSwitch;
  private readonly agents = new AgentBook();
  /** Live contact-center calls, and ended ones until their durable record is written. */
  private readonly calls = new Map<string, CcCall>();
  /**
   * Recently ended calls, newest last: served until their durable record is readable, so a client
   * that reads a call right after ending it finds it.
   */
  private readonly ended = new Map<string, CcCall>();
  private readonly ringTimers = new Map<string, TimerHandle>();
  private readonly texts: TextCounterStore;
  private distributing = false;
  private distributeQueued = false;

  constructor(readonly deps: ContactCenterDeps) {
    this.sw = deps.switch;
    this.texts = new TextCounterStore(deps.db);
  }

  private get now() {
    return this.deps.clock.now();
  }

  acdPort(): AcdPort {
    return {
      callQueued: (c) => this.onQueued(c),
      offerAnswered: (id, ext, at) => this.onAnswered(id, ext, at),
      offerFailed: (id, ext, reason) => this.onOfferFailed(id, ext, reason),
      callEnded: (id, at) => this.finish(id, at, 'caller hung up'),
    };
  }

  // ---- agents ----------------------------------------------------------------------------

  /** An agent extension of the tenant, or a typed error. */
  agentExtension(tenantId: number, ext: string): Extension {
    const e = this.deps.directory.extension(tenantId, ext);
    if (!e) throw notFound('EXTENSION_NOT_FOUND', 'Extension not found');
    if (!e.agent?.isAgent) throw invalid('NOT_AN_AGENT', 'Extension is not an agent');
    return e;
  }

  agentState(tenantId: number, ext: string): AgentSnapshot {
    this.agentExtension(tenantId, ext);
    const a = this.agent(tenantId, ext);
    this.refreshPhone(a);
    return snapshotAgent(a);
  }

  /** updateAgentState: `Ready` or a presence option name. sign_out states sign the agent out of every queue. */
  setAgentState(tenantId: number, ext: string, name: unknown, reason = 'request'): AgentSnapshot {
    this.agentExtension(tenantId, ext);
    const to = resolveAgentState(this.deps.directory, tenantId, name);
    this.changeAgentState(this.agent(tenantId, ext), to, reason);
    return snapshotAgent(this.agent(tenantId, ext));
  }

  private agent(tenantId: number, ext: string): AgentRecord {
    return this.agents.get(tenantId, ext, this.now);
  }

  private changeAgentState(a: AgentRecord, to: AgentStateName, reason: string): void {
    const previous = a.agentState;
    if (previous.type === to.type && previous.name === to.name) return;
    const wasSignedIn = previous.type !== 'sign_out';
    const signedIn = to.type !== 'sign_out';
    a.agentState = to;
    a.agentStateSince = this.now;
    if (to.type === 'ready') a.consecutiveMissed = 0;
    if (wasSignedIn !== signedIn) this.sw.setAcdSignedIn(a.tenantId, a.ext, signedIn);
    this.emit(a.tenantId, 'agent', 'agent_state_changed', { agent: snapshotAgent(a), previous, reason });
    for (const q of this.queuesOf(a.tenantId, a.ext)) this.publishStats(a.tenantId, q);
    if (to.type === 'ready') this.scheduleDistribute();
  }

  private setQueueState(a: AgentRecord, state: QueueStateName, call?: CcCall): void {
    const previous = a.queueState;
    a.queueState = state;
    a.queueStateSince = this.now;
    a.queueExt = call?.acdExt;
    a.queueCallId = call?.smdrCallId;
    this.emit(a.tenantId, 'agent', 'queue_state_changed', { agent: snapshotAgent(a), previous });
  }

  private refreshPhone(a: AgentRecord): void {
    const state = phoneStateOf(this.sw.liveLegs(a.tenantId, a.ext));
    if (state === a.phoneState) return;
    const previous = a.phoneState;
    a.phoneState = state;
    a.phoneStateSince = this.now;
    if (state === 'Idle' && previous !== 'Ringing') a.idleSince = this.now;
    this.emit(a.tenantId, 'agent', 'phone_state_changed', { agent: snapshotAgent(a), previous });
    if (state === 'Idle') this.scheduleDistribute();
  }

  /** The ACD extensions the agent belongs to. */
  private queuesOf(tenantId: number, ext: string): string[] {
    return this.deps.directory
      .extensions(tenantId)
      .filter((e) => e.type === 'acdExt' && e.acd?.agents.includes(ext))
      .map((e) => e.ext);
  }

  private isAgent(tenantId: number, ext: string): boolean {
    return !!this.deps.directory.extension(tenantId, ext)?.agent?.isAgent;
  }

  // ---- queue calls (the ACD port) -----------------------------------------------------------

  private onQueued(q: QueuedCall): void {
    const acd = this.deps.directory.extension(q.tenantId, q.acdExt);
    let call = this.calls.get(q.smdrCallId);
    if (!call) {
      call = new CcCall(
        {
          smdrCallId: q.smdrCallId,
          tenantId: q.tenantId,
          direction: 'in',
          calling: { number: q.callerNumber, name: q.callerName },
          called: { number: q.dialed, name: acd?.name ?? q.acdExt },
          startedAt: q.at,
          acdExt: q.acdExt,
        },
        'waiting',
      );
      call.log('inbound', q.at, `Inbound call from ${q.callerNumber} to ${q.dialed}`);
      this.calls.set(q.smdrCallId, call);
    } else {
      call.log('redirected', q.at, `Redirected to ${q.acdExt} ${acd?.name ?? ''}`.trim());
    }
    call.enterQueue(q.acdExt, q.at);
    call.log('called', q.at, `Queued in ${q.acdExt} ${acd?.name ?? ''}`.trim());
    this.emitCall(call, 'call_queued');
    this.publishStats(q.tenantId, q.acdExt);
    this.scheduleDistribute();
  }

  private onAnswered(smdrCallId: string, agentExt: string, at: number): void {
    const call = this.calls.get(smdrCallId);
    if (!call) return;
    this.clearRingTimer(smdrCallId);
    const ext = this.deps.directory.extension(call.tenantId, agentExt);
    call.leaveQueue(at);
    call.agentName = ext?.name;
    const recording = call.connect(agentExt, ext?.agent?.recordingType ?? 'None', at);
    call.log('answered', at, `Answered by ${agentExt} ${ext?.name ?? ''}`.trim());
    const a = this.agent(call.tenantId, agentExt);
    a.consecutiveMissed = 0;
    this.setQueueState(a, 'Connected', call);
    this.emitCall(call, 'call_answered', { agentExt });
    if (recording) this.recordingStarted(call, at);
    if (call.acdExt) this.publishStats(call.tenantId, call.acdExt);
    this.refreshPhone(a);
  }

  private onOfferFailed(smdrCallId: string, agentExt: string, reason: string): void {
    const call = this.calls.get(smdrCallId);
    if (call?.status !== 'offered' || call.agentExt !== agentExt) return;
    this.clearRingTimer(smdrCallId);
    this.missed(call, agentExt, reason);
  }

  private onRingNoAnswer(smdrCallId: string, agentExt: string): void {
    this.ringTimers.delete(smdrCallId);
    const call = this.calls.get(smdrCallId);
    if (call?.status !== 'offered' || call.agentExt !== agentExt) return;
    this.sw.withdrawOffer(smdrCallId, agentExt, 'ringNoAnswer');
    if (call.status === 'offered' && call.agentExt === agentExt) this.missed(call, agentExt, 'no answer');
  }

  /** The offered agent did not take the call: back to the queue, one more miss for the agent. */
  private missed(call: CcCall, agentExt: string, reason: string): void {
    const at = this.now;
    call.status = 'waiting';
    call.agentExt = undefined;
    call.missedBy.push(agentExt);
    const name = this.deps.directory.extension(call.tenantId, agentExt)?.name ?? '';
    call.log('no_answer', at, `Not answered by ${agentExt} ${name} (${reason})`.trim());
    const a = this.agent(call.tenantId, agentExt);
    a.consecutiveMissed += 1;
    a.idleSince = at;
    this.setQueueState(a, 'None');
    this.emitCall(call, 'call_not_answered', { agentExt, reason });
    const maxMissed = this.deps.directory.extension(call.tenantId, call.acdExt ?? '')?.acd?.maxMissed ?? 0;
    if (maxMissed > 0 && a.consecutiveMissed >= maxMissed && a.agentState.type === 'ready') {
      this.changeAgentState(a, autoAwayState(this.deps.directory, a.tenantId), 'missed calls');
    }
    this.refreshPhone(a);
    if (call.acdExt) this.publishStats(call.tenantId, call.acdExt);
    this.scheduleDistribute();
  }

  /** The call is over (caller left, kill, or the switch reported its end). Idempotent. */
  private finish(smdrCallId: string, at: number, why: string): void {
    const call = this.calls.get(smdrCallId);
    if (!call || call.status === 'ended') return;
    this.clearRingTimer(smdrCallId);
    const acdExt = call.acdExt;
    const wasWaiting = call.isWaiting;
    const wasRecording = call.isRecording;
    call.end(at);
    if (wasRecording) {
      call.log('recording_stopped', at, 'Recording stopped');
      this.emitCall(call, 'recording_stopped');
    }
    const reason = call.endReason ?? why;
    call.log(
      'disconnected',
      at,
      wasWaiting ? `Disconnected while waiting (${reason})` : `Disconnected (${reason})`,
    );
    if (call.agentExt) {
      const a = this.agents.peek(call.tenantId, call.agentExt);
      if (a && a.queueCallId === smdrCallId) {
        a.idleSince = at;
        this.setQueueState(a, 'None');
      }
      if (a) this.refreshPhone(a);
    }
    this.emitCall(call, 'call_ended', { reason });
    if (acdExt) this.publishStats(call.tenantId, acdExt);
    this.scheduleDistribute();
  }

  // ---- distribution ------------------------------------------------------------------------

  /** Distribution runs after the current switch command returns, never inside it. */
  private scheduleDistribute(): void {
    if (this.distributeQueued) return;
    this.distributeQueued = true;
    queueMicrotask(() => {
      this.distributeQueued = false;
      this.distribute();
    });
  }

  /** Oldest waiting call first, each to the longest-idle Ready agent signed in to its queue. */
  distribute(): void {
    if (this.distributing) return;
    this.distributing = true;
    try {
      const waiting = [...this.calls.values()]
        .filter((c) => c.status === 'waiting' && c.acdExt)
        .sort((a, b) => (a.queuedAt ?? 0) - (b.queuedAt ?? 0));
      for (const call of waiting) {
        for (const agent of this.candidates(call)) {
          if (this.offer(call, agent)) break;
        }
      }
    } finally {
      this.distributing = false;
    }
  }

  private candidates(call: CcCall): AgentRecord[] {
    const acd = this.deps.directory.extension(call.tenantId, call.acdExt!)?.acd;
    if (!acd) return [];
    return acd.agents
      .filter((ext) => this.isAgent(call.tenantId, ext))
      .map((ext) => this.agent(call.tenantId, ext))
      .filter((a) => {
        if (a.agentState.type !== 'ready' || a.queueState !== 'None') return false;
        this.refreshPhone(a);
        return a.phoneState === 'Idle';
      })
      .sort((a, b) => a.idleSince - b.idleSince || a.ext.localeCompare(b.ext, 'en', { numeric: true }));
  }

  private offer(call: CcCall, a: AgentRecord): boolean {
    // Marked before the switch is asked, so a report arriving during the command finds the offer.
    call.status = 'offered';
    call.agentExt = a.ext;
    try {
      this.sw.offerQueuedCall(call.smdrCallId, a.ext);
    } catch {
      // The phone cannot take it (unregistered, busy lines): try the next agent, no events.
      call.status = 'waiting';
      call.agentExt = undefined;
      return false;
    }
    // The switch may have answered or failed the offer synchronously.
    if (call.status !== 'offered' || call.agentExt !== a.ext) return true;
    this.setQueueState(a, 'Offered', call);
    const name = this.deps.directory.extension(call.tenantId, a.ext)?.name ?? '';
    call.log('offered', this.now, `Offered to ${a.ext} ${name}`.trim());
    this.emitCall(call, 'call_offered', { agentExt: a.ext });
    const ringTimeMs = this.deps.directory.extension(call.tenantId, call.acdExt!)?.acd?.ringTimeMs ?? 15_000;
    this.ringTimers.set(
      call.smdrCallId,
      this.deps.clock.setTimer(ringTimeMs, () => this.onRingNoAnswer(call.smdrCallId, a.ext)),
    );
    this.refreshPhone(a);
    return true;
  }

  private clearRingTimer(smdrCallId: string): void {
    this.deps.clock.clearTimer(this.ringTimers.get(smdrCallId));
    this.ringTimers.delete(smdrCallId);
  }

  // ---- call control --------------------------------------------------------------------------

  liveCalls(tenantId: number): CcCallSnapshot[] {
    const now = this.now;
    return [...this.calls.values()]
      .filter((c) => c.tenantId === tenantId && c.status !== 'ended')
      .sort((a, b) => b.init.startedAt - a.init.startedAt)
      .map((c) => c.snapshot(now));
  }

  /** Ended contact-center calls still held in memory (the durable record may lag a moment). */
  endedCalls(tenantId: number): CcCallSnapshot[] {
    const now = this.now;
    return [...this.ended.values()].filter((c) => c.tenantId === tenantId).map((c) => c.snapshot(now));
  }

  endedCall(tenantId: number, smdrCallId: string): CcCallSnapshot | undefined {
    const c = this.ended.get(smdrCallId);
    return c && c.tenantId === tenantId ? c.snapshot(this.now) : undefined;
  }

  private retire(smdrCallId: string): void {
    const c = this.calls.get(smdrCallId);
    if (!c) return;
    this.calls.delete(smdrCallId);
    this.ended.set(smdrCallId, c);
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
  }

  liveCall(tenantId: number, smdrCallId: string): CcCallSnapshot | undefined {
    const c = this.calls.get(smdrCallId);
    return c && c.tenantId === tenantId && c.status !== 'ended' ? c.snapshot(this.now) : undefined;
  }

  private liveCcCall(tenantId: number, smdrCallId: string): CcCall {
    const c = this.calls.get(smdrCallId);
    if (!c || c.tenantId !== tenantId || c.status === 'ended')
      throw notFound('CALL_NOT_FOUND', 'Call not found');
    return c;
  }

  startSuppression(tenantId: number, smdrCallId: string): void {
    const call = this.liveCcCall(tenantId, smdrCallId);
    call.suppress(this.now);
    call.log('suppression_started', this.now, 'Recording suppressed');
    this.emitCall(call, 'suppression_started');
  }

  stopSuppression(tenantId: number, smdrCallId: string): void {
    const call = this.liveCcCall(tenantId, smdrCallId);
    const started = call.unsuppress(this.now);
    if (started) this.recordingStarted(call, this.now);
    call.log('suppression_stopped', this.now, 'Recording resumed');
    this.emitCall(call, 'suppression_stopped');
  }

  private recordingStarted(call: CcCall, at: number): void {
    call.log('recording_started', at, `Recording started for ${call.agentExt}`);
    this.emitCall(call, 'recording_started');
  }

  /** Ends any live call of the tenant. */
  kill(tenantId: number, smdrCallId: string): void {
    const call = this.calls.get(smdrCallId);
    if (call && call.tenantId === tenantId && call.status !== 'ended') {
      call.log('killed', this.now, 'Call killed by request');
      call.endReason = 'killed';
      this.sw.endCall(smdrCallId, 'kill');
      this.finish(smdrCallId, this.now, 'killed');
      return;
    }
    if (!this.sw.legs(tenantId).some((l) => l.smdrCallId === smdrCallId)) {
      throw notFound('CALL_NOT_FOUND', 'Call not found');
    }
    this.sw.endCall(smdrCallId, 'kill');
  }

  private waitingCall(tenantId: number, smdrCallId: string): CcCall {
    const call = this.liveCcCall(tenantId, smdrCallId);
    if (!call.isWaiting) throw invalid('CALL_NOT_WAITING', 'Call is not waiting in a queue');
    return call;
  }

  /** A ringing offer is taken back (not a miss) before the call leaves the queue. */
  private withdrawPendingOffer(call: CcCall): void {
    if (call.status !== 'offered' || !call.agentExt) return;
    const a = this.agent(call.tenantId, call.agentExt);
    this.clearRingTimer(call.smdrCallId);
    this.sw.withdrawOffer(call.smdrCallId, call.agentExt, 'withdrawn');
    call.status = 'waiting';
    call.agentExt = undefined;
    this.setQueueState(a, 'None');
    this.refreshPhone(a);
  }

  /** wait_transfer: to an extension, an ACD extension or an outside number. */
  waitTransfer(tenantId: number, smdrCallId: string, target: unknown): void {
    const call = this.waitingCall(tenantId, smdrCallId);
    if (typeof target !== 'string' || !/^\+?[0-9*#]{1,32}$/.test(target.trim())) {
      throw invalid('INVALID_TARGET', 'target must be an extension or a number');
    }
    this.sendOut(call, target.trim(), 'transferred', `Transferred while waiting to ${target.trim()}`);
  }

  /** wait_redirect: to another ACD, by its uuid. */
  waitRedirect(tenantId: number, smdrCallId: string, acdUuid: unknown): void {
    const call = this.waitingCall(tenantId, smdrCallId);
    const acd = typeof acdUuid === 'string' ? this.deps.directory.extensionByUuid(acdUuid) : undefined;
    if (!acd || acd.tenantId !== tenantId || acd.type !== 'acdExt') {
      throw invalid('INVALID_TARGET', 'target must be the uuid of an ACD of this tenant');
    }
    this.sendOut(call, acd.ext, 'redirected', `Redirected while waiting to ${acd.ext} ${acd.name}`);
  }

  waitKill(tenantId: number, smdrCallId: string): void {
    const call = this.waitingCall(tenantId, smdrCallId);
    this.withdrawPendingOffer(call);
    call.log('killed', this.now, 'Killed while waiting');
    call.endReason = 'killed while waiting';
    this.sw.endCall(smdrCallId, 'wait_kill');
    this.finish(smdrCallId, this.now, 'killed while waiting');
  }

  private sendOut(call: CcCall, target: string, kind: 'transferred' | 'redirected', text: string): void {
    this.withdrawPendingOffer(call);
    const fromAcd = call.acdExt!;
    const at = this.now;
    call.leaveQueue(at);
    call.status = 'left';
    call.log(kind, at, text);
    this.emitCall(call, kind === 'transferred' ? 'call_transferred' : 'call_redirected', { reason: target });
    // An ACD target queues the call again (the switch calls callQueued).
    this.sw.redirectQueuedCall(call.smdrCallId, target);
    this.publishStats(call.tenantId, fromAcd);
  }

  /** Click to call through an outbound queue: the queue gives the caller id. */
  dial(tenantId: number, ext: string, target: unknown, outboundQueueId: unknown): CcCallSnapshot {
    const from = this.deps.directory.extension(tenantId, ext);
    if (from?.type !== 'userExt') throw invalid('INVALID_EXTENSION', 'Extension cannot dial');
    if (typeof target !== 'string' || !/^\+?[0-9*#]{1,32}$/.test(target.trim())) {
      throw invalid('INVALID_TARGET', 'target must be a number');
    }
    const oq = this.deps.directory.outboundQueues(tenantId).find((q) => q.id === outboundQueueId);
    if (!oq)
      throw invalid('INVALID_OUTBOUND_QUEUE', 'outbound_queue_uuid is not an outbound queue of this tenant');
    const leg = this.sw.makeCall({
      tenantId,
      fromExt: ext,
      to: target.trim(),
      callerId: { number: oq.callerId, name: oq.name },
    });
    const at = this.now;
    const call = new CcCall(
      {
        smdrCallId: leg.smdrCallId,
        tenantId,
        direction: 'out',
        calling: { number: oq.callerId, name: oq.name },
        called: { number: target.trim(), name: '' },
        startedAt: at,
        outboundQueueId: oq.id,
      },
      'dialing',
    );
    call.agentExt = ext;
    call.agentName = from.name;
    call.log('outbound', at, `Outbound call from ${ext} ${from.name} through ${oq.name}`);
    call.log('called', at, `Dialed ${target.trim()}`);
    this.calls.set(leg.smdrCallId, call);
    this.emitCall(call, 'call_dialed', { agentExt: ext });
    return call.snapshot(at);
  }

  // ---- switch events ---------------------------------------------------------------------------

  /** Fed with every switch event from the bus (after the call-record writer). */
  onSwitchEvent(e: SwitchEvent): void {
    if (e.type === 'callEnded') {
      this.finish(e.smdrCallId, e.at, 'call ended');
      // The durable record has taken the details (the writer runs first); drop them soon.
      queueMicrotask(() => this.retire(e.smdrCallId));
      return;
    }
    if (e.type !== 'call') return;
    const who = parseAccountId(e.observed);
    const call = this.calls.get(e.smdrCallId);
    if (call && who && call.agentExt === who.ext) {
      if (e.name === 'hold') call.hold(e.at);
      if (e.name === 'resume') call.resume(e.at);
      if (e.name === 'answer' && call.init.direction === 'out' && call.status === 'dialing') {
        const party = e.fields.answeringParty;
        if (party !== accountId(who.ext, who.tenantId) && party !== who.ext)
          this.outboundAnswered(call, e.at);
      }
    }
    if (who && this.isAgent(who.tenantId, who.ext)) this.refreshPhone(this.agent(who.tenantId, who.ext));
  }

  private outboundAnswered(call: CcCall, at: number): void {
    const ext = this.deps.directory.extension(call.tenantId, call.agentExt!);
    const recording = call.connect(call.agentExt!, ext?.agent?.recordingType ?? 'None', at);
    call.log('answered', at, `Answered by ${call.init.called.number}`);
    this.emitCall(call, 'call_answered', { agentExt: call.agentExt });
    if (recording) this.recordingStarted(call, at);
  }

  /** Contact-center details of a call (recordings, timeline) for its durable record. */
  recordDetails(smdrCallId: string): CcCallSnapshot | undefined {
    // Asked when the switch reports the call's end, possibly before the ACD port hears of it.
    this.finish(smdrCallId, this.now, 'call ended');
    return this.calls.get(smdrCallId)?.snapshot(this.now);
  }

  // ---- queues ------------------------------------------------------------------------------

  queueStats(tenantId: number, acdExt: string): QueueStats {
    const now = this.now;
    const waiting = [...this.calls.values()].filter(
      (c) => c.tenantId === tenantId && c.acdExt === acdExt && c.isWaiting,
    );
    const agents = (this.deps.directory.extension(tenantId, acdExt)?.acd?.agents ?? [])
      .filter((ext) => this.isAgent(tenantId, ext))
      .map((ext) => this.agent(tenantId, ext));
    return {
      tenantId,
      acdExt,
      waiting: waiting.length,
      longestWaitMs: waiting.reduce((m, c) => Math.max(m, now - (c.queuedAt ?? now)), 0),
      agentsSignedIn: agents.filter((a) => a.agentState.type !== 'sign_out').length,
      agentsReady: agents.filter((a) => a.agentState.type === 'ready').length,
      agentsBusy: agents.filter((a) => a.queueState !== 'None' || a.phoneState !== 'Idle').length,
    };
  }

  private publishStats(tenantId: number, acdExt: string): void {
    this.emit(tenantId, 'queue', 'queue_statistics', { stats: this.queueStats(tenantId, acdExt) });
  }

  // ---- SMS/MMS counters -------------------------------------------------------------------

  async countTextMessage(tenantId: number, direction: 'in' | 'out', kind: 'sms' | 'mms'): Promise<void> {
    await this.texts.increment(tenantId, `${direction}_${kind}`);
  }

  textCounts(tenantId: number): Promise<TextCounts> {
    return this.texts.get(tenantId);
  }

  resetTextCounts(tenantId: number): Promise<void> {
    return this.texts.reset(tenantId);
  }

  // ---- lifecycle ----------------------------------------------------------------------------

  /** Back to the demo state: no calls, counters empty, every agent Ready and signed in. */
  async reset(): Promise<void> {
    for (const t of this.ringTimers.values()) this.deps.clock.clearTimer(t);
    this.ringTimers.clear();
    for (const a of this.agents.all()) {
      if (a.agentState.type === 'sign_out') this.sw.setAcdSignedIn(a.tenantId, a.ext, true);
    }
    this.agents.clear();
    this.calls.clear();
    this.ended.clear();
    await this.texts.clear();
  }

  // ---- events ------------------------------------------------------------------------------

  private emitCall(
    call: CcCall,
    name: CallEventName,
    extra: { agentExt?: string; reason?: string } = {},
  ): void {
    this.emit(call.tenantId, 'call', name, { call: call.snapshot(this.now), ...extra });
  }

  private emit<E extends CcEvent>(
    tenantId: number,
    category: E['category'],
    name: E['name'],
    data: E['data'],
  ): void {
    this.deps.publish({ type: 'cc', category, name, tenantId, at: this.now, data } as CcEvent);
  }
}
