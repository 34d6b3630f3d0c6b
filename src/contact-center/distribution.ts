import { naturalCompare } from '../core/natural-order.js';
import type { AgentRecord } from './agent-book.js';
import type { CcCall } from './cc-call.js';
import type { CcContext } from './context.js';

/**
 * Distribution: oldest waiting call first, each to the longest-idle Ready agent of its queue.
 * It runs at the end of the tenant's turn, once every fact of the turn has been heard (never
 * inside a switch command), however many changes asked for it.
 */
export class Distribution {
  private readonly scheduled = new Set<number>();

  constructor(private readonly cc: CcContext) {}

  schedule(tenantId: number): void {
    if (this.scheduled.has(tenantId)) return;
    this.scheduled.add(tenantId);
    this.cc.sw.whenSettled(tenantId, () => {
      this.scheduled.delete(tenantId);
      this.distribute(tenantId);
    });
  }

  distribute(tenantId: number): void {
    for (const call of this.cc.calls.waiting(tenantId)) {
      for (const agent of this.candidates(call)) {
        if (this.cc.offers.offer(call, agent)) break;
      }
    }
  }

  /** The agents who may take the call now, the one idle longest first (ties: the lower extension). */
  private candidates(call: CcCall): AgentRecord[] {
    return this.cc.agents
      .ofQueue(call.tenantId, call.acdExt!)
      .filter((a) => {
        if (a.agentState.type !== 'ready' || a.queueState !== 'None') return false;
        this.cc.agents.refreshPhone(a);
        return a.phoneState === 'Idle';
      })
      .sort((a, b) => a.idleSince - b.idleSince || naturalCompare(a.ext, b.ext));
  }

  reset(): void {
    this.scheduled.clear();
  }
}
