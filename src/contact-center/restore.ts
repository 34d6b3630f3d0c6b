/**
 * The contact center's side of a takeover (docs/cluster.md, Failover): its calls and agents put
 * back from what a previous owner left. See the class.
 */
import type { AgentRecord } from './agent-book.js';
import { CcCall, type DurableCcCall } from './cc-call.js';
import type { CcContext } from './context.js';

/**
 * The contact center's side of taking a tenant over (docs/cluster.md, Failover): agents come
 * back in the states the previous owner left them in, and its calls come back either to be
 * finished at once (the switch ends them: their node was lost) or to wait on in their queue.
 * Nothing is announced while state is put back (subscribers saw it happen); what changes after
 * (the lost calls' ends, offers that will not ring any more, phones that are idle now) is
 * announced as usual. Runs on the tenant's turn.
 */
export class Restorer {
  constructor(private readonly cc: CcContext) {}

  agent(a: AgentRecord): void {
    this.cc.agents.restore(a);
  }

  /** A call its node lost: back in the book, so that the switch's end of it finishes it with `reason`. */
  lostCall(d: DurableCcCall, reason: string): void {
    const call = CcCall.restore(d);
    call.endReason = reason;
    this.cc.calls.add(call);
  }

  /** A queue call that waits on here. An offer that rang an agent on the lost node is gone (not a miss). */
  waitingCall(d: DurableCcCall): void {
    const call = CcCall.restore(d);
    this.cc.calls.add(call);
    if (call.status !== 'offered') return;
    const ext = call.agentExt;
    call.status = 'waiting';
    call.agentExt = undefined;
    const a = ext === undefined ? undefined : this.cc.agents.peek(call.tenantId, ext);
    if (a?.queueCallId === call.smdrCallId) this.cc.agents.setQueueState(a, 'None');
  }

  /**
   * Once the turn's facts are heard: each agent's phone as the switch has it now, queue states
   * that name no live call cleared, the statistics of the queues calls wait in, and distribution.
   */
  settle(tenantId: number): void {
    this.cc.sw.whenSettled(tenantId, () => {
      for (const a of this.cc.agents.ofTenant(tenantId)) {
        if (a.queueCallId !== undefined && !this.cc.calls.live(tenantId, a.queueCallId)) {
          this.cc.agents.setQueueState(a, 'None');
        }
        this.cc.agents.refreshPhone(a);
      }
      for (const e of this.cc.directory.extensions(tenantId)) {
        if (e.type === 'acdExt' && this.cc.calls.inQueue(tenantId, e.ext).length > 0) {
          this.cc.stats.publish(tenantId, e.ext);
        }
      }
      this.cc.distribution.schedule(tenantId);
    });
  }

  /** The tenant is no longer run here: its calls, their ring timers and its agents are forgotten. */
  forgetTenant(tenantId: number): void {
    for (const c of this.cc.calls.ofTenant(tenantId)) {
      this.cc.offers.clearRingTimer(c.smdrCallId);
      this.cc.calls.remove(c.smdrCallId);
    }
    this.cc.agents.forgetTenant(tenantId);
  }

  durableCall(tenantId: number, smdrCallId: string): DurableCcCall | undefined {
    const c = this.cc.calls.get(smdrCallId);
    return c && c.tenantId === tenantId ? c.durable() : undefined;
  }

  durableAgent(tenantId: number, ext: string): AgentRecord | undefined {
    const a = this.cc.agents.peek(tenantId, ext);
    return a && { ...a };
  }
}
