import type { CcContext } from './context.js';
import type { QueueStats } from './types.js';

/** Queue statistics: computed on demand, published (`queue_statistics`) on every change of a queue's calls or agents. */
export class QueueStatistics {
  constructor(private readonly cc: CcContext) {}

  of(tenantId: number, acdExt: string): QueueStats {
    const now = this.cc.clock.now();
    const waiting = this.cc.calls.inQueue(tenantId, acdExt);
    const agents = this.cc.agents.ofQueue(tenantId, acdExt);
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

  publish(tenantId: number, acdExt: string): void {
    this.cc.events.emit(tenantId, 'queue', 'queue_statistics', { stats: this.of(tenantId, acdExt) });
  }
}
