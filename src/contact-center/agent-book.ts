import type { AgentSnapshot } from './types.js';
import { READY } from './types.js';

/** Live state of one agent. */
export interface AgentRecord extends AgentSnapshot {
  /** When the agent last became free for a queue call; the smallest value gets the next offer. */
  idleSince: number;
}

const key = (tenantId: number, ext: string) => `${tenantId}:${ext}`;

/** Every agent's state, created Ready on first use. */
export class AgentBook {
  private agents = new Map<string, AgentRecord>();

  get(tenantId: number, ext: string, now: number): AgentRecord {
    const k = key(tenantId, ext);
    let a = this.agents.get(k);
    if (!a) {
      a = {
        tenantId,
        ext,
        agentState: READY,
        agentStateSince: now,
        phoneState: 'Idle',
        phoneStateSince: now,
        queueState: 'None',
        queueStateSince: now,
        consecutiveMissed: 0,
        idleSince: 0,
      };
      this.agents.set(k, a);
    }
    return a;
  }

  peek(tenantId: number, ext: string): AgentRecord | undefined {
    return this.agents.get(key(tenantId, ext));
  }

  /** An agent's state as a previous owner of the tenant left it (failover). */
  restore(a: AgentRecord): void {
    this.agents.set(key(a.tenantId, a.ext), { ...a });
  }

  /** The tenant is no longer run here. */
  forgetTenant(tenantId: number): void {
    for (const [k, a] of this.agents) if (a.tenantId === tenantId) this.agents.delete(k);
  }

  all(): AgentRecord[] {
    return [...this.agents.values()];
  }

  clear(): void {
    this.agents.clear();
  }
}

export function snapshotAgent(a: AgentRecord): AgentSnapshot {
  const { idleSince: _, ...snapshot } = a;
  return { ...snapshot };
}
