import type { Logger } from 'pino';
import type { ContactCenter } from '../../contact-center/contact-center.js';
import type { Clock } from '../../core/clock.js';
import type { Telemetry } from '../../core/telemetry.js';
import type { Directory } from '../../directory/directory.js';
import type { CallRecordStore } from '../../store/call-records.js';
import type { Db } from '../../store/database.js';
import type { Authenticator } from '../auth/index.js';
import type { Continuity } from '../continuity/index.js';
import type { Limits } from '../limits/index.js';
import type { PlatformEvents } from '../platform-events.js';
import type { Placement } from '../route-core/placement.js';
import type { ApiDocs } from '../schema/registry.js';
import type { TrafficObserver } from '../transport/traffic.js';

/**
 * The ports the contact-center API is given by the composition root (src/server), and all it
 * may reach. The API never sees the server's whole runtime.
 */
export interface CcRuntime {
  directory: Directory;
  clock: Clock;
  contactCenter: ContactCenter;
  callRecords: CallRecordStore;
  /** Where the OAuth tokens are kept. */
  db: Db;
  /** Where a failed token revocation is reported. */
  log: Logger;
  /** The bus the event socket listens to. */
  events: PlatformEvents;
  docs: ApiDocs;
  /** Shared with the other APIs: one lock-out and credential cache, one set of limits. */
  auth: Authenticator;
  limits: Limits;
  /** The server's event journal and resumable sessions, opened once (docs/events.md). */
  continuity: Promise<Continuity>;
  config: { wsConnectTimeoutMs: number; bodyLimitBytes: number };
  /** The operator's counters and gauges (`GET /metrics`). */
  telemetry: Telemetry;
  /** Sees every socket frame when set (the contract tests). */
  traffic?: TrafficObserver;
  /** A cluster node's: where a tenant's requests run (docs/cluster.md § Forwarding). */
  placement?: Placement;
  /**
   * A cluster node's: resolves once this node has consumed every event the cluster's stream held
   * when called (bounded), so that what a socket starts or stops hearing applies from then on.
   */
  eventsCaughtUp?(): Promise<unknown>;
}
