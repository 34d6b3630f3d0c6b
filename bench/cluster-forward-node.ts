// One node of the cluster benchmarks, in its own process: the server with its links to the other
// nodes (src/server/cluster-forward.ts) on a shared PostgreSQL schema and the NATS server, the
// tenants' owners fixed from the command line (a stand-in for the lease-based membership: the
// benchmark measures forwarding, not placement). Prints `listening <port>` when it serves.
//   node --import tsx bench/cluster-forward-node.ts <node> <owners: 1001=a,1002=b> <cluster size> <schema> <prefix>
import { connect } from '@nats-io/transport-node';
import pino from 'pino';
import { composeForwarding } from '../src/server/cluster-forward.js';
import { DEFAULTS } from '../src/server/config.js';
import { startServer } from '../src/server/serve.js';
import { StaticMembership } from '../test/helpers/static-membership.js';
import { NATS_URL, PG_URL } from '../test/helpers/cluster-engines.js';

const [name, owners, size, schema, prefix] = process.argv.slice(2);

const membership = new StaticMembership(name);
for (const pair of owners.split(',')) {
  const [tenantId, owner] = pair.split('=');
  await membership.assign(Number(tenantId), owner);
}
const nats = await connect({ servers: NATS_URL, noAsyncTraces: true });
const config = { ...DEFAULTS, port: 0, host: '127.0.0.1', logLevel: 'warn', clock: 'virtual' as const };
const server = await startServer(config, pino({ level: 'warn' }), {
  target: { kind: 'postgres', url: PG_URL, schema },
  standIn: true,
  extend: async (runtime) => {
    runtime.membership = membership;
    await membership.bindLeases(runtime.db);
    return composeForwarding(runtime, { nats, prefix, clusterSize: () => Number(size) });
  },
});
process.stdout.write(`listening ${new URL(server.httpUrl).port}\n`);
process.on('SIGTERM', () => {
  void server
    .close()
    .then(() => nats.close())
    .then(() => process.exit(0));
});
