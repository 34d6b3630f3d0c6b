import type { TimerHandle } from '../core/clock.js';
import type { AgentRecord } from './agent-book.js';
import { autoAwayState } from './agent-states.js';
import type { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';

const DEFAULT_RING_TIME_MS = 15_000;

/**
 * Offers and misses: ringing an agent with a queue call, the ring-no-answer timer, an offer the
 * phone declines, and what a miss costs the agent (after `maxMissed` in a row: the tenant's first
 * away state).
 */
export class Offers {
  private readonly ringTimers = new Map<string, TimerHandle>();

  constructor(private readonly cc: CcContext) {}

  private name(tenantId: number, ext: string): string {
    return this.cc.directory.extension(tenantId, ext)?.name ?? '';
  }

  /** Rings the agent; false when the phone cannot take the call (try the next agent, no events). */
  offer(call: CcCall, a: AgentRecord): boolean {
    // Marked before the switch is asked, so the call is not offered to anyone else meanwhile.
    call.status = 'offered';
    call.agentExt = a.ext;
    try {
      this.cc.sw.offerQueuedCall(call.smdrCallId, a.ext);
    } catch {
      call.status = 'waiting';
      call.agentExt = undefined;
      return false;
    }
    // The phone rings now: its state first, as the switch's facts will tell it.
    this.cc.agents.refreshPhone(a);
    this.cc.agents.setQueueState(a, 'Offered', call);
    call.log('offered', this.cc.clock.now(), `Offered to ${a.ext} ${this.name(call.tenantId, a.ext)}`.trim());
    this.cc.events.call(call, 'call_offered', { agentExt: a.ext });
    const acd = this.cc.directory.extension(call.tenantId, call.acdExt!)?.acd;
    const ringTimeMs = acd?.ringTimeMs ?? DEFAULT_RING_TIME_MS;
    const { tenantId, smdrCallId } = call;
    this.ringTimers.set(
      smdrCallId,
      this.cc.clock.setTimer(ringTimeMs, () =>
        this.cc.sw.onQueue(tenantId, () => this.ringNoAnswer(smdrCallId, a.ext)),
      ),
    );
    return true;
  }

  /** The phone declined the offer (reject, deflect, unregistered): a miss. */
  failed(smdrCallId: string, agentExt: string, reason: string): void {
    const call = this.cc.calls.get(smdrCallId);
    if (call?.status !== 'offered' || call.agentExt !== agentExt) return;
    this.clearRingTimer(smdrCallId);
    this.missed(call, agentExt, reason);
  }

  private ringNoAnswer(smdrCallId: string, agentExt: string): void {
    this.ringTimers.delete(smdrCallId);
    const call = this.cc.calls.get(smdrCallId);
    if (call?.status !== 'offered' || call.agentExt !== agentExt) return;
    this.cc.sw.withdrawOffer(smdrCallId, agentExt, 'ringNoAnswer');
    this.cc.agents.refreshPhoneOf(call.tenantId, agentExt);
    this.missed(call, agentExt, 'no answer');
  }

  /** A ringing offer is taken back (not a miss) before the call leaves the queue. */
  withdraw(call: CcCall): void {
    if (call.status !== 'offered' || !call.agentExt) return;
    const a = this.cc.agents.get(call.tenantId, call.agentExt);
    this.clearRingTimer(call.smdrCallId);
    this.cc.sw.withdrawOffer(call.smdrCallId, call.agentExt, 'withdrawn');
    this.cc.agents.refreshPhone(a);
    call.status = 'waiting';
    call.agentExt = undefined;
    this.cc.agents.setQueueState(a, 'None');
  }

  /** The offered agent did not take the call: back to the queue, one more miss for the agent. */
  private missed(call: CcCall, agentExt: string, reason: string): void {
    const at = this.cc.clock.now();
    call.status = 'waiting';
    call.agentExt = undefined;
    call.missedBy.push(agentExt);
    const name = this.name(call.tenantId, agentExt);
    call.log('no_answer', at, `Not answered by ${agentExt} ${name} (${reason})`.trim());
    const a = this.cc.agents.get(call.tenantId, agentExt);
    a.consecutiveMissed += 1;
    a.idleSince = at;
    this.cc.agents.setQueueState(a, 'None');
    this.cc.events.call(call, 'call_not_answered', { agentExt, reason });
    const maxMissed = this.cc.directory.extension(call.tenantId, call.acdExt ?? '')?.acd?.maxMissed ?? 0;
    if (maxMissed > 0 && a.consecutiveMissed >= maxMissed && a.agentState.type === 'ready') {
      this.cc.agents.change(a, autoAwayState(this.cc.directory, a.tenantId), 'missed calls');
    }
    this.cc.agents.refreshPhone(a);
    if (call.acdExt) this.cc.stats.publish(call.tenantId, call.acdExt);
    this.cc.distribution.schedule(call.tenantId);
  }

  clearRingTimer(smdrCallId: string): void {
    this.cc.clock.clearTimer(this.ringTimers.get(smdrCallId));
    this.ringTimers.delete(smdrCallId);
  }

  reset(): void {
    for (const t of this.ringTimers.values()) this.cc.clock.clearTimer(t);
    this.ringTimers.clear();
  }
}
