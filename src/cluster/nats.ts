/**
 * The node's one NATS connection (docs/cluster.md): forwarding, events and broadcasts between
 * nodes all ride on it. Named after the node (the server's monitoring pages show the name),
 * reconnecting for ever once it has connected, every status change logged. Whether it is up right
 * now is `connected()`: a node without NATS gets no new tenants (lease-membership.ts).
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface NatsLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface NodeNats {
  nc: NatsConnection;
  /** False while the connection is down (reconnecting). */
  connected(): boolean;
  /** Drains subscriptions and closes. */
  close(): Promise<void>;
}

export class NatsUnreachableError extends Error {}

/** The subject prefix of one cluster: `sb.<clusterName>`. */
export const subjectPrefix = (clusterName: string) => `sb.${clusterName}`;

/** The JetStream stream of a cluster's events: `SB_<clusterName>_EVENTS`. */
export const eventStreamName = (clusterName: string) => `SB_${clusterName}_EVENTS`;

export async function connectNats(opts: {
  servers: string[];
  nodeId: string;
  clusterName: string;
  log: NatsLog;
  /** For the first connection; default 5 s. */
  timeoutMs?: number;
}): Promise<NodeNats> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: opts.servers,
      name: `switchboard ${opts.clusterName} ${opts.nodeId}`,
      reconnect: true,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 1000,
      // A connection that went silent (a cut without a reset) is found within about 30 s, not the
      // client's default of minutes: meanwhile the node hears no lock-out, directory change or event.
      pingInterval: 10_000,
      maxPingOut: 2,
      timeout: opts.timeoutMs ?? 5000,
      // Otherwise every request builds an Error for its stack trace: 2.5 % of a forwarding
      // node's CPU (docs/benchmarks.md, "Cluster forwarding").
      noAsyncTraces: true,
    });
  } catch (e) {
    throw new NatsUnreachableError(`NATS not reachable (${opts.servers.join(',')}): ${(e as Error).message}`);
  }
  let up = true;
  const { log } = opts;
  void (async () => {
    for await (const s of nc.status()) {
      switch (s.type) {
        case 'disconnect':
          up = false;
          log.warn({ server: s.server }, 'NATS disconnected; reconnecting');
          break;
        case 'reconnecting':
          up = false;
          break;
        case 'reconnect':
          up = true;
          log.info({ server: s.server }, 'NATS reconnected');
          break;
        case 'error':
          log.error({ err: s.error }, 'NATS error');
          break;
        case 'slowConsumer':
          log.warn({ subject: s.sub.getSubject(), pending: s.pending }, 'NATS slow consumer');
          break;
        case 'staleConnection':
          log.warn({}, 'NATS connection stale');
          break;
        case 'ldm':
          log.warn({ server: s.server }, 'NATS server entering lame duck mode');
          break;
        default:
          break;
      }
    }
  })().catch(() => {});
  return {
    nc,
    connected: () => up && !nc.isClosed(),
    async close() {
      if (nc.isClosed()) return;
      await nc.drain().catch(() => nc.close());
    },
  };
}
