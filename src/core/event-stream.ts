/**
 * The ports behind event continuity: each tenant's events in one ordered, durable stream, and the
 * resumable socket sessions that follow it. Standalone, SQL implements the log
 * (`store/event-log.ts`); in a cluster the cluster's event stream does (`EventStreamSource`,
 * src/cluster/jetstream-bus.ts), its stream sequence being the `seq` here (docs/decisions.md,
 * "Event continuity" and "Cluster events"). Types only: no I/O.
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
  /**
   * The attachment that last took the session (begun or claimed: a fresh token each time); null
   * for one stored before holders were. Only that attachment's node may write it further.
   */
  holder: string | null;
}

export interface SessionStorePort {
  all(): Promise<StoredSession[]>;
  /** One session as stored (a cluster node reads the one a resume names: it may be another node's). */
  get(id: string): Promise<StoredSession | undefined>;
  /** Stores the session whole, as `s.holder`'s (a session begun, or claimed back). */
  put(s: StoredSession): Promise<void>;
  /**
   * Stores its state and `detachedAt` while it is still stored as `s.holder`'s; false when
   * another attachment took it since (another node's resume) or it is gone: nothing is written.
   */
  putHeld(s: StoredSession & { holder: string }): Promise<boolean>;
  /**
   * Forgets a session; with `ifStored`, only while it is stored with that `detachedAt` and, when
   * given, that `holder` (in a cluster another node may have taken it over since).
   */
  remove(id: string, ifStored?: { detachedAt: number | null; holder?: string | null }): Promise<void>;
  /**
   * A cluster's: lets go of the sessions whose node is no longer alive. One still stored as
   * attached (its node died with the socket open) counts as detached from `now`; one detached
   * `graceMs` or longer before `now` is removed. Answers how many of each.
   */
  releaseDeadNodes(now: number, graceMs: number): Promise<{ detached: number; removed: number }>;
  /**
   * A cluster node starting: the sessions stored as attached to it (an earlier process under the
   * same node id, stopped or killed with sockets open) count as detached from `now`.
   */
  detachOwn(now: number): Promise<void>;
}

/**
 * A cluster's event stream as one node reads it (JetStream): every tenant's events in one
 * ordered stream whose sequence is each event's `seq`, the same on every node. The node's bus
 * hands the events to its subscribers in stream order; this is what the journal asks besides.
 */
export interface EventStreamSource<E> {
  /**
   * The sequence of the last event handed to this node's subscribers (before the first: the
   * stream's last sequence when the node began to consume). Every later event has a higher one.
   */
  position(): number;
  /**
   * Resolves once this node has handed its subscribers every event the stream held when called
   * (false: not within the bound; the caller goes on with what it has).
   */
  caughtUp(): Promise<boolean>;
  /**
   * Resolves true once every event this node published so far is in the stream (false: not
   * within the bound): any node that catches up with the stream after has them.
   */
  stored(): Promise<boolean>;
  /**
   * The tenant's events with a sequence in (after, upTo], in order, read back from the stream;
   * undefined when the stream may no longer hold all of them (its limits discarded some).
   */
  read(tenantId: number, after: number, upTo: number): Promise<{ seq: number; event: E }[] | undefined>;
}
