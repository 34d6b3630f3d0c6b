import type { Clock } from '../../core/clock.js';
import type { Membership } from '../../core/cluster.js';
import type { WebhookStorePort } from '../../core/webhooks.js';
import type { Telemetry } from '../../core/telemetry.js';
import type { Directory } from '../../directory/directory.js';
import type { Authenticator } from '../auth/index.js';
import type { Continuity } from '../continuity/index.js';
import type { Limits } from '../limits/index.js';
import type { PlatformEvents } from '../platform-events.js';
import type { Placement } from '../route-core/placement.js';
import type { ApiDocs } from '../schema/registry.js';
import type { TrafficObserver } from '../transport/traffic.js';
import type { VoiceSwitch } from './switch-port.js';

/**
 * The ports the voice API is given by the composition root (src/server), and all it may reach:
 * handlers see them as `ctx.runtime`. The API never sees the server's whole runtime.
 */
export interface VoiceRuntime {
  directory: Directory;
  clock: Clock;
  switch: VoiceSwitch;
  /** The bus the event fan-out listens to. */
  events: PlatformEvents;
  /** The OpenAPI and AsyncAPI documents the routes describe themselves in. */
  docs: ApiDocs;
  /** Shared with the other APIs: one lock-out and credential cache, one set of limits. */
  auth: Authenticator;
  limits: Limits;
  /** The server's event journal and resumable sessions, opened once (docs/events.md). */
  continuity: Promise<Continuity>;
  /** The operator's settings the API reads: the body cap, the provisioned-record cap. */
  config: {
    bodyLimitBytes: number;
    maxRecords: number;
    webhooksAllowHttp: boolean;
    webhooksAllowPrivate: boolean;
    webhookTimeoutMs: number;
    webhookRetryMs: number;
  };
  /** Runs `hook` when the simulator resets the world to the demo. */
  onReset(hook: () => void | Promise<void>): void;
  /** Where webhooks and their delivery queues are kept (docs/events.md). */
  webhookStore: WebhookStorePort;
  /** Which tenants this node runs: in a cluster only their owner delivers their webhooks. */
  membership: Membership;
  /** The operator's counters and gauges (`GET /metrics`). */
  telemetry: Telemetry;
  /** Sees every socket frame when set (the contract tests). */
  traffic?: TrafficObserver;
  /** A cluster node's: where a tenant's requests run (docs/cluster.md § Forwarding). */
  placement?: Placement;
  /**
   * A cluster node's: resolves once this node has consumed every event the cluster's stream held
   * when called (bounded), for a read served from the events of tenants other nodes run.
   */
  eventsCaughtUp?(): Promise<unknown>;
}
