import type { Generated } from 'kysely';

/** Kysely table types. JSON columns hold text on both dialects. */
export interface DirectoryEntitiesTable {
  kind: string;
  id: string;
  tenant_id: number | null;
  data: string;
  updated_at: number;
}

export interface CallRecordsTable {
  smdr_call_id: string;
  tenant_id: number;
  started_at: number;
  answered_at: number | null;
  ended_at: number;
  from_number: string;
  to_number: string;
  outcome: string;
  /** The calling and called numbers the contact center shows, as digits: what the call search matches. */
  calling_key: string;
  called_key: string;
  /** JSON: the record body (parties, segments, contact-center details). */
  data: string;
}

export interface CcTokensTable {
  token_hash: string;
  kind: 'access' | 'refresh';
  subject: string;
  expires_at: number;
  created_at: number;
}

export interface TextCountersTable {
  tenant_id: number;
  out_sms: number;
  out_mms: number;
  in_sms: number;
  in_mms: number;
}

export interface KvTable {
  key: string;
  value: string;
}

/** One event of a tenant's ordered stream, as the sockets render it (resume replays it). */
export interface EventLogTable {
  tenant_id: number;
  seq: number;
  channel: 'voice' | 'cc';
  /** JSON array: the voice event's index keys, or the contact-center category and name. */
  tags: string;
  body: string;
}

/** Per tenant: the next sequence to issue (or reserved up to), and whether it closed cleanly. */
export interface EventStreamsTable {
  tenant_id: number;
  next_seq: number;
  clean: number;
}

/** A resumable socket session: what it subscribed to, and since when it is detached. */
export interface ResumeSessionsTable {
  id: string;
  api: 'voice' | 'cc';
  identity: string;
  /** The tenant whose stream it follows; null: every tenant (a telco contact-center session). */
  tenant_id: number | null;
  state: string;
  detached_at: number | null;
  /** The attachment that last took the session (0011); null for one stored before. */
  holder: string | null;
  /** The cluster node whose socket took it last (0012); null on a standalone server, or before. */
  node: string | null;
}

/** A webhook (docs/events.md): its owner (JSON principal) and its state (JSON: url, secret, accounts). */
export interface WebhooksTable {
  id: string;
  tenant_id: number;
  owner: string;
  state: string;
}

/** One event to deliver to a webhook, in `position` order, with its attempts (JSON). */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  position: number;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: string;
}

/** A cluster node (docs/cluster.md); alive while `heartbeat_at` is within its `ttl_ms`. */
export interface ClusterNodesTable {
  node_id: string;
  url: string | null;
  host: string;
  pid: number;
  /** 0..15, unique among recently alive nodes: the node part of call ids (core/ids.ts). */
  slot: number;
  ttl_ms: number;
  /** 1: may be given tenants (its NATS connection is up); 0: keeps what it has, gets nothing new. */
  eligible: number;
  started_at: number;
  heartbeat_at: number;
  /** The node's CLUSTER_PROTOCOL (core/cluster.ts); 1 for a node older than the column. */
  protocol: number;
}

/** A tenant's lease: held by `owner_node` until `expires_at`; `epoch` grows with every new grant. */
export interface TenantLeasesTable {
  tenant_id: number;
  owner_node: string;
  epoch: number;
  expires_at: number;
  granted_at: number;
}

/** The standalone server holding the database (one row, `slot` = 'standalone'), for the guard. */
export interface StandaloneHolderTable {
  slot: string;
  node_id: string;
  host: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
}

/** Failed logins of one lock-out key (principal + address) in a cluster: their times (JSON), and the lock. */
export interface AuthFailuresTable {
  lock_key: string;
  failures: string;
  locked_until: number;
  /** The guesses under way (JSON `{ at, id }[]`), each counted until it ends or for GUESS_TTL_MS. */
  guesses: Generated<string>;
}

/** A socket slot a cluster node holds for a client, kept alive by the node until it expires. */
export interface SocketClaimsTable {
  claim_id: string;
  client_key: string;
  node_id: string;
  expires_at: number;
}

/**
 * A live call of the tenant's owner, as data (failover, docs/cluster.md): written as the call
 * changes, removed with its record. `waiting`: 1 for a caller waiting in a queue.
 */
export interface LiveCallsTable {
  tenant_id: number;
  smdr_call_id: string;
  owner_node: string;
  epoch: number;
  waiting: number;
  started_at: number;
  /**
   * JSON: the switch's call (legs, parties) and the contact center's part of it. Its history is in
   * `live_call_history` (a row written before that table held its history here).
   */
  data: string;
  /** The owner's clock when it was written. */
  updated_at: number;
}

/** One item of a live call's history (JSON), at its position `seq` (from 0). */
export interface LiveCallHistoryTable {
  tenant_id: number;
  smdr_call_id: string;
  seq: number;
  data: string;
}

/** A contact-center agent's state (JSON), as its tenant's owner last wrote it. */
export interface CcAgentStatesTable {
  tenant_id: number;
  ext: string;
  owner_node: string;
  epoch: number;
  data: string;
  updated_at: number;
}

export interface LiveDeviceStatesTable {
  tenant_id: number;
  device_id: string;
  owner_node: string;
  epoch: number;
  /** 1: registered; 0: not. */
  registered: number;
  updated_at: number;
}

export interface Database {
  directory_entities: DirectoryEntitiesTable;
  call_records: CallRecordsTable;
  cc_tokens: CcTokensTable;
  text_counters: TextCountersTable;
  kv: KvTable;
  event_log: EventLogTable;
  event_streams: EventStreamsTable;
  resume_sessions: ResumeSessionsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  cluster_nodes: ClusterNodesTable;
  tenant_leases: TenantLeasesTable;
  standalone_holder: StandaloneHolderTable;
  auth_failures: AuthFailuresTable;
  socket_claims: SocketClaimsTable;
  live_calls: LiveCallsTable;
  live_call_history: LiveCallHistoryTable;
  cc_agent_states: CcAgentStatesTable;
  live_device_states: LiveDeviceStatesTable;
}

export type { Generated };
