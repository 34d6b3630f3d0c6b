// A cluster node for bench/cluster-events.bench.ts: a whole Switchboard server (the usual flags)
// with the cluster's event bus on the local NATS JetStream and a fixed ownership: every tenant
// is owned by SB_BENCH_OWNER. It stands in for `switchboard serve --nats …` (the lease
// membership and the composition of src/server/cluster-node.ts) so that the events path can be
// measured on its own. Env: SB_BENCH_NODE (this node's id), SB_BENCH_CLUSTER (cluster name),
// SB_BENCH_OWNER, SB_BENCH_SCHEMA (PostgreSQL schema), SB_BENCH_NATS (default nats://127.0.0.1:4222).
import { connect } from '@nats-io/transport-node';
import { JetStreamBus } from '../src/cluster/jetstream-bus.js';
import type { Membership } from '../src/core/cluster.js';
import { parseConfig } from '../src/server/config.js';
import { createLogger, startServer } from '../src/server/serve.js';
import { LeaseStore } from '../src/store/leases.js';
import { LOCAL_NATS_URL } from '../test/helpers/cluster-engines.js';

const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is required`);
  return v;
};
const nodeId = env('SB_BENCH_NODE');
const owner = env('SB_BENCH_OWNER');

/** Every tenant owned by one node, for ever. */
const membership: Membership = {
  nodeId,
  clustered: true,
  owns: () => owner === nodeId,
  ownerOf: () => owner,
  epochOf: () => (owner === nodeId ? 1 : undefined),
  onChange: () => () => {},
  takingOver: () => undefined,
};

const config = parseConfig(process.argv.slice(2));
const log = createLogger(config);
const nc = await connect({ servers: process.env.SB_BENCH_NATS ?? LOCAL_NATS_URL });
const events = await JetStreamBus.start({
  nc,
  clusterName: env('SB_BENCH_CLUSTER'),
  membership,
  retention: { perTenantEvents: config.eventRetention, resumeGraceMs: config.resumeGraceMs },
  log,
});
const server = await startServer(config, log, {
  target: { kind: 'postgres', url: config.databaseUrl!, schema: env('SB_BENCH_SCHEMA') },
  cluster: { membership, events },
});
// The owner's leases, granted by the lease store as the lease membership would take them (for an
// hour: the benchmark fixes the ownership): without them the lease fence (src/store/lease-fence.ts)
// refuses every live-state batch of the owner, which then measures failed transactions instead
// of the journal's writes. The schema is fresh, so each grant is the first: epoch 1, as `epochOf` says.
if (owner === nodeId) {
  const leases = new LeaseStore(server.runtime.db);
  for (const t of server.runtime.directory.tenants()) {
    const grant = await leases.acquire(t.tenantId, nodeId, 3_600_000);
    if (!grant.acquired || grant.epoch !== 1)
      throw new Error(`tenant ${t.tenantId}: lease not granted at epoch 1 (${JSON.stringify(grant)})`);
  }
}
console.log(`listening ${new URL(server.httpUrl).port}`);
const stop = async () => {
  await server.close();
  await nc.close();
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
