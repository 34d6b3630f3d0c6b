/**
 * The cluster's event stream in JetStream (docs/cluster.md, "Events"): one stream per cluster,
 * `SB_<clusterName>_EVENTS`, one subject per tenant, `sb.<clusterName>.ev.<tenantId>`, so that
 * a tenant's events keep their order and its sequence numbers can serve as resume cursors on
 * every node. Created, or brought to this node's settings, at start; any node may do it, any
 * number of times.
 *
 * Retention is by limits, from the continuity flags: per tenant (subject) the last
 * `--event-retention` events, each kept at least 24 h and at least twice `--resume-grace-ms`.
 * There is no stream-wide byte cap on purpose: discarding by bytes takes the oldest messages of
 * the whole stream, so one busy tenant would push out a quiet tenant's history
 * (docs/decisions.md, "Cluster events").
 */
import {
  DiscardPolicy,
  type JetStreamManager,
  RetentionPolicy,
  StorageType,
  type StreamConfig,
} from '@nats-io/jetstream';

const NAME = /^[A-Za-z0-9_-]{1,64}$/;
const DAY_MS = 86_400_000;

export interface EventStreamNames {
  stream: string;
  /** `sb.<clusterName>` */
  prefix: string;
  /** Every tenant's subject: `<prefix>.ev.>` */
  all: string;
  subjectOf(tenantId: number): string;
}

export function eventStreamNames(clusterName: string): EventStreamNames {
  if (!NAME.test(clusterName))
    throw new Error(`cluster name "${clusterName}": letters, digits, "-" and "_" only (at most 64)`);
  const prefix = `sb.${clusterName}`;
  return {
    stream: `SB_${clusterName}_EVENTS`,
    prefix,
    all: `${prefix}.ev.>`,
    subjectOf: (tenantId) => `${prefix}.ev.${tenantId}`,
  };
}

/** What the stream keeps (from `--event-retention` and `--resume-grace-ms`). */
export interface EventRetention {
  perTenantEvents: number;
  resumeGraceMs: number;
}

export function streamConfig(
  names: EventStreamNames,
  r: EventRetention,
): Partial<StreamConfig> & { name: string } {
  const maxAgeMs = Math.max(DAY_MS, 2 * r.resumeGraceMs);
  return {
    name: names.stream,
    subjects: [names.all],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    discard: DiscardPolicy.Old,
    max_msgs_per_subject: r.perTenantEvents,
    max_age: maxAgeMs * 1_000_000,
    // A retried publish (same message id) within this window is stored once.
    duplicate_window: 120_000_000_000,
    // Reading back a tenant's oldest event (the resume's completeness check) is a direct get.
    allow_direct: true,
    num_replicas: 1,
  };
}

/**
 * Creates the stream, or updates its limits when another node (or an older run) made it otherwise.
 * Answers the lower of the stream's per-tenant limit before and after (what a read-back judges
 * by: a raised limit does not bring back what the lower one removed).
 */
export async function ensureEventStream(
  jsm: JetStreamManager,
  names: EventStreamNames,
  r: EventRetention,
): Promise<number> {
  const config = streamConfig(names, r);
  const existing = await jsm.streams.info(names.stream).catch((err: unknown) => {
    if (isNotFound(err)) return undefined;
    throw err;
  });
  if (!existing) {
    try {
      await jsm.streams.add(config);
      return r.perTenantEvents;
    } catch (err) {
      // Another node created it meanwhile: fall through to the update.
      if (!/already in use/i.test(String((err as Error)?.message))) throw err;
    }
  }
  const { name: _name, storage: _storage, ...changeable } = config;
  void _name;
  void _storage;
  const current = existing?.config;
  if (
    current &&
    current.max_msgs_per_subject === config.max_msgs_per_subject &&
    current.max_age === config.max_age &&
    current.allow_direct === true &&
    current.subjects.length === 1 &&
    current.subjects[0] === names.all
  )
    return r.perTenantEvents;
  await jsm.streams.update(names.stream, changeable);
  const before = current?.max_msgs_per_subject ?? 0;
  return before > 0 ? Math.min(before, r.perTenantEvents) : r.perTenantEvents;
}

function isNotFound(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown; api_error?: { err_code?: number } };
  return e?.api_error?.err_code === 10059 || /stream not found/i.test(String(e?.message));
}
