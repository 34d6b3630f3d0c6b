/**
 * Where the contact center (and, for phones, the switch's `device` events) say that a tenant's
 * live state changed (docs/cluster.md, Failover): a live call (the switch's part or its own), an
 * agent's state, a phone's registration. The sink writes the state as it stands, later and in
 * batches (live-state-journal.ts), never on the tenant's turn.
 */
export interface LiveStateSink {
  callChanged(tenantId: number, smdrCallId: string): void;
  agentChanged(tenantId: number, ext: string): void;
  deviceChanged(tenantId: number, deviceId: string): void;
}

/** The disconnect reason of a call whose node was lost: the `end` events' `endReason`, the record's last step. */
export const NODE_LOST = 'node lost';
