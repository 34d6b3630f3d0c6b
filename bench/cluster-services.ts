// The cluster benchmarks need NATS (JetStream) and PostgreSQL. Without them there is nothing to
// measure: the benchmark says so in one line and ends, which fails under CI.
import { unansweredEngines } from '../test/helpers/cluster-engines.js';

export async function exitUnlessClusterServices(name: string, pgUrl: string, natsUrl: string): Promise<void> {
  const missing = await unansweredEngines({ pgUrl, natsUrl, timeoutMs: 2_000 });
  if (!missing) return;
  console.log(`${name} skipped: ${missing}`);
  process.exit(process.env.CI && process.env.CI !== 'false' ? 1 : 0);
}
