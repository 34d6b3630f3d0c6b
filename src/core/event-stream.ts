/**
 * The port behind event continuity: each tenant's events in one ordered, durable stream, and the
 * resumable socket sessions that follow it. Standalone, SQL implements it (`store/event-log.ts`);
 * in a cluster the tenant's JetStream subject will, its stream sequence being the `seq` here
 * (docs/decisions.md, "Event continuity"). Types only: no I/O.
 */

/** One event as the sockets render it, in its tenant's order. */
export interface LoggedEvent {
  tenantId: number;
  /** Increasing per tenant, never reused (gaps allowed). */
  seq: number;
  channel: 'voice' | 'cc';
  /** Voice: the event's subscription index keys. Contact center: `[category, name]`. */
  tags: string[];
  /** Voice: the body JSON without its opening brace. Contact center: the frame JSON. */
  body: string;
}

/** Where a tenant's stream stands. */
export interface StreamHead {
  tenantId: number;
  /** Every sequence below it may have been issued (a reservation, exact after a clean close). */
  nextSeq: number;
  /** Closed cleanly: every issued event up to nextSeq - 1 is stored. */
  clean: boolean;
}

export interface EventLogPort {
  /** The stream heads and, per tenant, its last `perTenant` events in order. */
  load(perTenant: number): Promise<{ heads: StreamHead[]; events: LoggedEvent[] }>;
  /** Stores events and moves heads in one transaction; the heads it moves are no longer clean. */
  append(events: readonly LoggedEvent[], heads: readonly StreamHead[]): Promise<void>;
  /** Forgets a tenant's events below `seq` (retention). */
  prune(tenantId: number, belowSeq: number): Promise<void>;
  /** A graceful close: the exact heads, clean. */
  closeClean(heads: readonly StreamHead[]): Promise<void>;
  /** Forgets every event and head (simulator reset). */
  clear(): Promise<void>;
}

/** A resumable socket session as stored: it outlives its socket for the grace period. */
export interface StoredSession {
  id: string;
  api: 'voice' | 'cc';
  /** The resolved principal's identity; only the same identity may resume. */
  identity: string;
  /** The tenant whose stream it follows; null: every tenant. */
  tenantId: number | null;
  /** The API's own description of what the session subscribed to. */
  state: unknown;
  /** When its socket closed; null while attached. */
  detachedAt: number | null;
}

export interface SessionStorePort {
  all(): Promise<StoredSession[]>;
  put(s: StoredSession): Promise<void>;
  remove(id: string): Promise<void>;
}
