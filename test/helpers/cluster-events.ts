/**
 * What the cluster event tests stand on: the real NATS server (JetStream) and the real
 * PostgreSQL, a cluster name and a PostgreSQL schema of their own per test, and in-process nodes
 * built as a cluster node is (the JetStream bus, a membership) on one shared database. Without
 * NATS or PostgreSQL a suite is skipped with one line, except under CI, where it fails.
 */
import { randomBytes } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';
import { NATS_URL, PG_URL, unansweredEngines } from './cluster-engines.js';
import pino from 'pino';
import { JetStreamBus } from '../../src/cluster/jetstream-bus.js';
import type { Membership } from '../../src/core/cluster.js';
import type { Config } from '../../src/server/config.js';
import type { DatabaseTarget } from '../../src/store/database.js';
import { StaticMembership } from './static-membership.js';
import { type TestServer, startTestServer } from './server.js';

const underCi = () => !!process.env.CI && process.env.CI !== 'false';

/** A cluster name no other test (or helper) uses. */
export const uniqueClusterName = () => `t${process.pid}_${randomBytes(4).toString('hex')}`;

/** Why the cluster tests cannot run here (undefined: they can); under CI, a thrown error. */
export async function clusterUnavailable(): Promise<string | undefined> {
  const why =
    (await unansweredEngines({ pgUrl: PG_URL, natsUrl: NATS_URL, timeoutMs: 1_000, jetStream: true })) ||
    undefined;
  if (why && underCi()) throw new Error(`cluster tests cannot run: ${why}; CI runs every suite`);
  return why;
}

/** Connections opened and streams made by this process, closed and deleted by `cleanUp`. */
const connections: NatsConnection[] = [];
const streams = new Set<string>();
const schemas: string[] = [];

export async function natsConnection(): Promise<NatsConnection> {
  const nc = await connect({ servers: NATS_URL });
  connections.push(nc);
  return nc;
}

export interface TestBusOptions {
  clusterName: string;
  membership: Membership;
  nc?: NatsConnection;
  retention?: { perTenantEvents: number; resumeGraceMs: number };
}

/** A started JetStream bus, as a cluster node makes it. */
export async function testBus(o: TestBusOptions): Promise<JetStreamBus> {
  const bus = await JetStreamBus.start({
    nc: o.nc ?? (await natsConnection()),
    clusterName: o.clusterName,
    membership: o.membership,
    retention: o.retention ?? { perTenantEvents: 10_000, resumeGraceMs: 120_000 },
    log: pino({ level: 'silent' }),
  });
  streams.add(bus.names.stream);
  return bus;
}

/** A fresh schema on the shared PostgreSQL server. */
export function freshPgTarget(): DatabaseTarget & { kind: 'postgres' } {
  const schema = `sb_cl_events_${process.pid}_${randomBytes(4).toString('hex')}`;
  schemas.push(schema);
  return { kind: 'postgres', url: PG_URL, schema };
}

/** One in-process node of a cluster: a test server whose runtime has the cluster's parts. */
export interface TestNode extends TestServer {
  nodeId: string;
  membership: StaticMembership;
  bus: JetStreamBus;
}

export async function startNode(
  nodeId: string,
  clusterName: string,
  target: DatabaseTarget,
  overrides: Partial<Config> = {},
): Promise<TestNode> {
  const membership = new StaticMembership(nodeId);
  const bus = await testBus({ clusterName, membership });
  const server = await startTestServer({ ...overrides }, { target, cluster: { membership, events: bus } });
  // Lease rows as grants would write them: the lease fence checks every durable write.
  await membership.bindLeases(server.runtime.db);
  return Object.assign(server, { nodeId, membership, bus });
}

/** Sets a tenant's owner on every node, as the lease membership would tell each. */
export async function assignEverywhere(nodes: readonly TestNode[], tenantId: number, owner: string) {
  for (const n of nodes) await n.membership.assign(tenantId, owner);
}

/** Deletes the streams, drops the schemas and closes the connections this process made. */
export async function cleanUp(): Promise<void> {
  if (connections.length > 0 && streams.size > 0) {
    const jsm = await jetstreamManager(connections[0]!);
    for (const s of streams) await jsm.streams.delete(s).catch(() => {});
  }
  streams.clear();
  for (const nc of connections.splice(0)) await nc.close().catch(() => {});
  if (schemas.length > 0) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    for (const s of schemas.splice(0)) await c.query(`drop schema if exists ${s} cascade`);
    await c.end();
  }
}
