import type { NatsConnection } from '@nats-io/transport-node';
import { Forwarding } from '../cluster/forwarding.js';
import type { Runtime } from './runtime.js';
import type { ServerExtension } from './serve.js';

/** What a cluster node's forwarding needs besides its runtime (docs/cluster.md). */
export interface ForwardingNodeOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  /** Bounds of a forwarded request (src/cluster/forwarding.ts). */
  timeoutMs?: number;
  settleMs?: number;
}

/**
 * Composes forwarding around a cluster node's runtime: its requests for tenants another node
 * owns go there (runtime.placement, read by the APIs when the app is built), and the requests
 * other nodes forward here run through the app. Call after `runtime.membership` is the
 * cluster's and before `buildApp`; `attach` the app before it listens; `close` first on shutdown.
 */
export function composeForwarding(runtime: Runtime, opts: ForwardingNodeOptions): ServerExtension {
  const forwarding = new Forwarding({
    nats: opts.nats,
    prefix: opts.prefix,
    membership: runtime.membership,
    log: runtime.log,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
  });
  runtime.placement = forwarding;
  return {
    attach: (app) => forwarding.serve(app),
    close: () => forwarding.close(),
  };
}
