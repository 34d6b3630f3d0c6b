import type { NatsConnection } from '@nats-io/transport-node';
import { DirectorySync } from '../cluster/directory-sync.js';
import { Forwarding } from '../cluster/forwarding.js';
import { ClusterWorld } from '../cluster/shared-world.js';
import type { Runtime } from './runtime.js';
import type { ServerExtension } from './serve.js';

/** What a cluster node's links to the other nodes need besides its runtime (docs/cluster.md). */
export interface ForwardingNodeOptions {
  nats: NatsConnection;
  /** `sb.<clusterName>` */
  prefix: string;
  /**
   * The live nodes of the cluster, this one included: how many a directory write, a clock advance
   * or a reset waits for. Without it nothing waits for the other nodes.
   */
  clusterSize?: () => number;
  /** Bounds of a forwarded request (src/cluster/forwarding.ts); `settleMs`: the lease TTL + 1 s. */
  timeoutMs?: number;
  settleMs?: number;
}

/**
 * Composes a cluster node's links to the others around its runtime (docs/cluster.md):
 * - forwarding: requests for tenants another node owns go there (`runtime.placement`, read by
 *   the APIs when the app is built), and requests other nodes forward run through this app;
 * - the directory: this node's provisioning writes reach the other nodes' caches, theirs this one's;
 * - the shared world: the simulator's clock advance and reset act on every node (`runtime.world`).
 *
 * Call once `runtime.membership` is the cluster's and before `buildApp`; `attach` the app before
 * it listens; `close` first on shutdown (the NATS connection is the caller's to close after).
 */
export async function composeForwarding(
  runtime: Runtime,
  opts: ForwardingNodeOptions,
): Promise<ServerExtension> {
  const { nats, prefix, clusterSize } = opts;
  const { membership, log } = runtime;
  const nodeId = membership.nodeId;
  const forwarding = new Forwarding({
    nats,
    prefix,
    membership,
    log,
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.settleMs !== undefined ? { settleMs: opts.settleMs } : {}),
    ...(clusterSize ? { clusterSize } : {}),
  });
  const directory = new DirectorySync({
    nats,
    prefix,
    nodeId,
    directory: runtime.directory,
    log,
    // Presence and registrations follow the directory record by record; after a whole re-read
    // (news missed) the switch rebuilds them from it.
    onReloaded: () => runtime.switch.resync(),
    ...(clusterSize ? { clusterSize } : {}),
  });
  const world = new ClusterWorld({
    nats,
    prefix,
    nodeId,
    clock: runtime.clock,
    log,
    resetAll: () => runtime.resetToDemo(),
    resetHere: () => runtime.resetNodeState(),
    directorySettled: () => directory.settled(),
    lastStoredAt: () => runtime.liveState.store.lastWrittenAt(),
    ...(clusterSize ? { clusterSize } : {}),
  });
  await directory.start();
  await world.start();
  runtime.placement = forwarding;
  runtime.world = world;
  return {
    attach: (app) => forwarding.serve(app),
    async close() {
      await forwarding.close();
      await world.close();
      await directory.close();
    },
  };
}
