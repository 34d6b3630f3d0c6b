import { connect, type NatsConnection } from '@nats-io/transport-node';
import { after, before } from 'node:test';
import type { Config } from '../../src/server/config.js';
import { composeForwarding, type ForwardingNodeOptions } from '../../src/server/cluster-forward.js';
import { startTestServer, type TestServer } from './server.js';
import { StaticMembership } from './static-membership.js';
import { NATS_URL, PG_URL } from './cluster-engines.js';

/**
 * In-process cluster nodes for tests (docs/cluster.md): real servers on one fresh PostgreSQL
 * schema and the real NATS server, each with a `StaticMembership` that assigns the tenants as
 * the test says, under a cluster prefix no other test uses.
 */
/**
 * Why the cluster tests cannot run here (no PostgreSQL or NATS), or undefined when they can.
 * Under CI the engines are required: the caller fails instead of skipping.
 */
export async function missingEngines(): Promise<string | undefined> {
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 2000 });
    await nc.close();
  } catch {
    return `no NATS at ${NATS_URL}`;
  }
  try {
    const pg = await import('pg');
    const c = new pg.default.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.end();
  } catch {
    return `no PostgreSQL at ${PG_URL}`;
  }
  return undefined;
}

/**
 * A suite's `skip` option: false where PostgreSQL and NATS answer; where they do not, the reason
 * (one line in the report), except under CI, which must run every suite and fails here.
 */
export async function clusterSkip(): Promise<string | false> {
  const missing = await missingEngines();
  if (!missing) return false;
  if (process.env.CI && process.env.CI !== 'false') throw new Error(`cluster tests cannot run: ${missing}`);
  return `cluster tests skipped: ${missing}`;
}

export interface ClusterNode extends TestServer {
  name: string;
  membership: StaticMembership;
  nats: NatsConnection;
}

export interface TestCluster {
  prefix: string;
  schema: string;
  nodes: ClusterNode[];
  node(name: string): ClusterNode;
  /** Sets the tenant's owner on every node still running. */
  assign(tenantId: number, node: string): Promise<void>;
  /** Starts one more node, with the tenants' owners as the running nodes have them. */
  addNode(name: string): Promise<ClusterNode>;
  /** Stops one node (its NATS connection too), as a node that leaves. */
  stopNode(name: string): Promise<void>;
  stop(): Promise<void>;
}

let n = 0;

/** Starts the nodes one after the other (the first seeds the schema), tenants already assigned. */
export async function startCluster(
  names: string[],
  owners: Record<number, string>,
  overrides: Partial<Config> = {},
  forwarding: Partial<Omit<ForwardingNodeOptions, 'nats' | 'prefix'>> = {},
): Promise<TestCluster> {
  const unique = `${process.pid}_${Date.now()}_${n++}`;
  const prefix = `sb.t${unique}`;
  const schema = `sb_cluster_${unique}`;
  const nodes: ClusterNode[] = [];
  const stopped = new Set<string>();
  /** Nodes that started (or are starting): what a change waits for, less those stopped. */
  let joined = 0;
  const owned: Record<number, string> = { ...owners };
  const cluster: TestCluster = {
    prefix,
    schema,
    nodes,
    node: (name) => nodes.find((x) => x.name === name)!,
    addNode: () => Promise.reject(new Error('not started')),
    async assign(tenantId, owner) {
      owned[tenantId] = owner;
      for (const x of nodes) if (!stopped.has(x.name)) await x.membership.assign(tenantId, owner);
    },
    async stopNode(name) {
      if (stopped.has(name)) return;
      stopped.add(name);
      const x = cluster.node(name);
      await x.stop();
      await x.nats.close();
    },
    async stop() {
      for (const x of nodes) await cluster.stopNode(x.name);
      const pg = await import('pg');
      const c = new pg.default.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`drop schema if exists ${schema} cascade`);
      await c.end();
    },
  };
  const startNode = async (name: string) => {
    const membership = new StaticMembership(name);
    for (const [tenantId, owner] of Object.entries(owned)) await membership.assign(Number(tenantId), owner);
    // As a node connects (src/cluster/nats.ts): no stack captured per request.
    const nats = await connect({ servers: NATS_URL, noAsyncTraces: true });
    const server = await startTestServer(overrides, {
      target: { kind: 'postgres', url: PG_URL, schema },
      standIn: true,
      extend: async (runtime) => {
        runtime.membership = membership;
        // Lease rows as grants would write them: the lease fence checks every durable write.
        await membership.bindLeases(runtime.db);
        joined++;
        const clusterSize = () => joined - stopped.size;
        return composeForwarding(runtime, { nats, prefix, clusterSize, ...forwarding });
      },
    });
    const node = Object.assign(server, { name, membership, nats });
    nodes.push(node);
    return node;
  };
  cluster.addNode = startNode;
  try {
    for (const name of names) await startNode(name);
  } catch (e) {
    await cluster.stop().catch(() => {});
    throw e;
  }
  return cluster;
}

/**
 * The suites' cluster: nodes a (owner of tenant 1001) and b (of 1002), started before the
 * suite's tests and stopped after them; `started` receives it first. Call inside `describe`.
 */
export function suiteCluster(
  started: (cluster: TestCluster) => unknown,
  forwarding: Partial<Omit<ForwardingNodeOptions, 'nats' | 'prefix'>> = {},
): () => TestCluster {
  let cluster: TestCluster | undefined;
  before(async () => {
    cluster = await startCluster(['a', 'b'], { 1001: 'a', 1002: 'b' }, {}, forwarding);
    await started(cluster);
  });
  after(() => cluster?.stop());
  return () => {
    if (!cluster) throw new Error('the suite cluster has not started');
    return cluster;
  };
}
