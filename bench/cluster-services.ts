// The cluster benchmarks need NATS (JetStream) and PostgreSQL. Without them there is nothing to
// measure: the benchmark says so in one line and ends, which fails under CI.
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

export async function exitUnlessClusterServices(name: string, pgUrl: string, natsUrl: string): Promise<void> {
  const missing = await Promise.all([
    connect({ servers: natsUrl, timeout: 2_000, reconnect: false }).then(
      (nc) => nc.close().then(() => undefined),
      () => `no NATS at ${natsUrl}`,
    ),
    (async () => {
      const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2_000 });
      try {
        await c.connect();
        await c.end();
        return undefined;
      } catch {
        return `no PostgreSQL at ${pgUrl}`;
      }
    })(),
  ]).then((r) => r.filter(Boolean).join(', '));
  if (!missing) return;
  console.log(`${name} skipped: ${missing}`);
  process.exit(process.env.CI && process.env.CI !== 'false' ? 1 : 0);
}
