import type { Config, Option } from './config.js';
import { ConfigError } from './config-error.js';

/**
 * The flags of cluster mode (docs/cluster.md). Kept apart from config.ts, which holds the rest.
 * Node and cluster names end up in NATS subjects (`sb.<cluster>.node.<node>.http`) and a stream
 * name (`SB_<cluster>_EVENTS`), so they are plain tokens: no dots, spaces or wildcards.
 */
export const CLUSTER_OPTIONS: Option[] = [
  {
    key: 'nats',
    flag: '--nats',
    env: 'SWITCHBOARD_NATS',
    type: 'urls',
    help: 'cluster mode: nats://host:4222[,nats://...] (needs --database-url)',
  },
  {
    key: 'nodeId',
    flag: '--node-id',
    env: 'SWITCHBOARD_NODE_ID',
    type: 'string',
    help: 'cluster node id: letters, digits, _ and - (default: host-pid-random)',
  },
  {
    key: 'leaseTtlMs',
    flag: '--lease-ttl-ms',
    env: 'SWITCHBOARD_LEASE_TTL_MS',
    type: 'int',
    min: 1000,
    max: 600_000,
    help: "cluster: a tenant's lease lasts this long unless renewed",
  },
  {
    key: 'drainMs',
    flag: '--drain-ms',
    env: 'SWITCHBOARD_DRAIN_MS',
    type: 'int',
    min: 0,
    max: 3_600_000,
    help: 'cluster: on SIGTERM, hand tenants over as their calls end, for at most this long',
  },
  {
    key: 'clusterName',
    flag: '--cluster-name',
    env: 'SWITCHBOARD_CLUSTER_NAME',
    type: 'string',
    help: 'cluster: names its NATS subjects and stream',
  },
  {
    key: 'advertiseUrl',
    flag: '--advertise-url',
    env: 'SWITCHBOARD_ADVERTISE_URL',
    type: 'string',
    help: "cluster: this node's URL for operators (GET /cluster)",
  },
];

const TOKEN = /^[A-Za-z0-9_-]+$/;

/** Checks the cluster flags together; throws ConfigError with one line. */
export function checkCluster(config: Config): void {
  if (config.nats.length && !config.databaseUrl) {
    throw new ConfigError('--nats (cluster mode) needs --database-url: the nodes share PostgreSQL');
  }
  if (config.nodeId !== undefined && !(TOKEN.test(config.nodeId) && config.nodeId.length <= 64)) {
    throw new ConfigError(`--node-id: "${config.nodeId}" must be 1-64 letters, digits, _ or -`);
  }
  if (!(TOKEN.test(config.clusterName) && config.clusterName.length <= 32)) {
    throw new ConfigError(`--cluster-name: "${config.clusterName}" must be 1-32 letters, digits, _ or -`);
  }
  if (config.advertiseUrl !== undefined && !/^(https?|wss?):\/\/[^/\s]+/.test(config.advertiseUrl)) {
    throw new ConfigError(`--advertise-url: "${config.advertiseUrl}" is not an http(s):// URL`);
  }
}

/** `nats://a:4222,nats://b:4222`: the servers of one NATS cluster. */
export function parseNatsUrls(raw: string, source: string): string[] {
  const urls = raw
    .split(',')
    .map((u) => u.trim())
    .filter((u) => u !== '');
  if (!urls.length) throw new ConfigError(`${source}: expected nats://host:port`);
  for (const u of urls) {
    if (!/^(nats|tls):\/\/[^/\s]+$/.test(u)) {
      throw new ConfigError(`${source}: "${u}" is not a NATS URL like nats://127.0.0.1:4222`);
    }
  }
  return urls;
}

/** The default node id: this host, this process and a random part, as one token. */
export function defaultNodeId(host: string, pid: number, random: string): string {
  const h = host.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 40) || 'node';
  return `${h}-${pid}-${random}`;
}
