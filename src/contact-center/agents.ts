import { invalid, notFound } from '../core/errors.js';
import type { Extension } from '../directory/model.js';
import { type AgentRecord, AgentBook, snapshotAgent } from './agent-book.js';
import { resolveAgentState } from './agent-states.js';
import type { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';
import { phoneStateOf } from './phone-state.js';
import type { AgentSnapshot, AgentStateName, QueueStateName } from './types.js';

/**
 * Agent states: the agent state a person chooses, the phone state the switch's legs give, and the
 * queue state distribution gives. Each change is an `agent` event.
 */
export class AgentStates {
  private readonly book = new AgentBook();
  private changeCount = 0;

  constructor(private readonly cc: CcContext) {}

  /** An agent extension of the tenant, or a typed error. */
  extension(tenantId: number, ext: string): Extension {
    const e = this.cc.directory.extension(tenantId, ext);
    if (!e) throw notFound('EXTENSION_NOT_FOUND', 'Extension not found');
    if (!e.agent?.isAgent) throw invalid('NOT_AN_AGENT', 'Extension is not an agent');
    return e;
  }

  /**
   * Moves whenever an agent's state may read differently, for any tenant run here: a change of
   * any of its states (a miss counted or cleared always comes with a queue state), a restore, a
   * tenant forgotten, a reset. It only grows.
   */
  get changes(): number {
    return this.changeCount;
  }

  isAgent(tenantId: number, ext: string): boolean {
    return !!this.cc.directory.extension(tenantId, ext)?.agent?.isAgent;
  }

  /** The agent's record, created Ready on first use. */
  get(tenantId: number, ext: string): AgentRecord {
    return this.book.get(tenantId, ext, this.cc.clock.now());
  }

  peek(tenantId: number, ext: string): AgentRecord | undefined {
    return this.book.peek(tenantId, ext);
  }

  /** The agents of an ACD extension that are agents. */
  ofQueue(tenantId: number, acdExt: string): AgentRecord[] {
    return (this.cc.directory.extension(tenantId, acdExt)?.acd?.agents ?? [])
      .filter((ext) => this.isAgent(tenantId, ext))
      .map((ext) => this.get(tenantId, ext));
  }

  /** The agent's state now (the phone state read from the switch first). */
  snapshot(tenantId: number, ext: string): AgentSnapshot {
    this.extension(tenantId, ext);
    const a = this.get(tenantId, ext);
    this.refreshPhone(a);
    return snapshotAgent(a);
  }

  /** updateAgentState: `Ready` or a presence option name. sign_out states sign the agent out of every queue. */
  choose(tenantId: number, ext: string, name: unknown, reason: string): AgentSnapshot {
    this.extension(tenantId, ext);
    const to = resolveAgentState(this.cc.directory, tenantId, name);
    const a = this.get(tenantId, ext);
    this.change(a, to, reason);
    return snapshotAgent(a);
  }

  change(a: AgentRecord, to: AgentStateName, reason: string): void {
    const previous = a.agentState;
    if (previous.type === to.type && previous.name === to.name) return;
    const wasSignedIn = previous.type !== 'sign_out';
    const signedIn = to.type !== 'sign_out';
    this.changeCount++;
    a.agentState = to;
    a.agentStateSince = this.cc.clock.now();
    if (to.type === 'ready') a.consecutiveMissed = 0;
    if (wasSignedIn !== signedIn) this.cc.sw.setAcdSignedIn(a.tenantId, a.ext, signedIn);
    this.cc.events.emit(a.tenantId, 'agent', 'agent_state_changed', {
      agent: snapshotAgent(a),
      previous,
      reason,
    });
    for (const q of this.queuesOf(a.tenantId, a.ext)) this.cc.stats.publish(a.tenantId, q);
    if (to.type === 'ready') this.cc.distribution.schedule(a.tenantId);
  }

  setQueueState(a: AgentRecord, state: QueueStateName, call?: CcCall): void {
    const previous = a.queueState;
    this.changeCount++;
    a.queueState = state;
    a.queueStateSince = this.cc.clock.now();
    a.queueExt = call?.acdExt;
    a.queueCallId = call?.smdrCallId;
    this.cc.events.emit(a.tenantId, 'agent', 'queue_state_changed', { agent: snapshotAgent(a), previous });
  }

  /** Reads the agent's phone state from the switch's legs; a change is an event. */
  refreshPhone(a: AgentRecord): void {
    const state = phoneStateOf(this.cc.sw.liveLegs(a.tenantId, a.ext));
    if (state === a.phoneState) return;
    const now = this.cc.clock.now();
    const previous = a.phoneState;
    this.changeCount++;
    a.phoneState = state;
    a.phoneStateSince = now;
    if (state === 'Idle' && previous !== 'Ringing') a.idleSince = now;
    this.cc.events.emit(a.tenantId, 'agent', 'phone_state_changed', { agent: snapshotAgent(a), previous });
    if (state === 'Idle') this.cc.distribution.schedule(a.tenantId);
  }

  /** After a command on the switch touched an agent's legs: its phone state now, as the facts will say. */
  refreshPhoneOf(tenantId: number, ext: string | undefined): void {
    if (ext !== undefined && this.isAgent(tenantId, ext)) this.refreshPhone(this.get(tenantId, ext));
  }

  /** The ACD extensions the agent belongs to. */
  queuesOf(tenantId: number, ext: string): string[] {
    return this.cc.directory
      .extensions(tenantId)
      .filter((e) => e.type === 'acdExt' && e.acd?.agents.includes(ext))
      .map((e) => e.ext);
  }

  /** An agent's state as the tenant's previous owner left it (failover): no event. */
  restore(a: AgentRecord): void {
    this.changeCount++;
    this.book.restore(a);
  }

  /** The agents of a tenant this node no longer runs are forgotten (no events). */
  forgetTenant(tenantId: number): void {
    this.changeCount++;
    this.book.forgetTenant(tenantId);
  }

  /** The tenant's agents that have a state here. */
  ofTenant(tenantId: number): AgentRecord[] {
    return this.book.all().filter((a) => a.tenantId === tenantId);
  }

  /** Back to the demo state: every agent signed in again, records forgotten (created Ready on next use). */
  reset(): void {
    this.changeCount++;
    for (const a of this.book.all()) {
      if (a.agentState.type === 'sign_out') this.cc.sw.setAcdSignedIn(a.tenantId, a.ext, true);
    }
    this.book.clear();
  }
}
