/**
 * Where the cluster tests and the cluster benchmarks find PostgreSQL and NATS, and whether those
 * answer: one place for the addresses (SWITCHBOARD_TEST_PG_URL, SWITCHBOARD_TEST_NATS_URL, which
 * scripts/test-services.mjs sets when it starts engines of its own; else the local servers) and
 * for the look that decides whether a suite or a benchmark can run at all.
 */
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import pg from 'pg';

/** The local servers, where nothing says otherwise. */
export const LOCAL_PG_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const LOCAL_NATS_URL = 'nats://127.0.0.1:4222';

export const PG_URL = process.env.SWITCHBOARD_TEST_PG_URL ?? LOCAL_PG_URL;
export const NATS_URL = process.env.SWITCHBOARD_TEST_NATS_URL ?? LOCAL_NATS_URL;

export interface EngineLook {
  pgUrl: string;
  natsUrl: string;
  /** How long each may take to answer. */
  timeoutMs: number;
  /** The NATS server must have JetStream too. */
  jetStream?: boolean;
}

/** What does not answer (`no NATS at …`, `no PostgreSQL at …`), joined; empty when both do. */
export async function unansweredEngines(look: EngineLook): Promise<string> {
  const { pgUrl, natsUrl, timeoutMs } = look;
  const why = await Promise.all([
    connect({ servers: natsUrl, timeout: timeoutMs, reconnect: false }).then(
      async (nc) => {
        const ok = look.jetStream
          ? await jetstreamManager(nc).then(
              () => undefined,
              () => `no JetStream at ${natsUrl}`,
            )
          : undefined;
        await nc.close();
        return ok;
      },
      () => `no NATS at ${natsUrl}`,
    ),
    (async () => {
      const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: timeoutMs });
      try {
        await c.connect();
        await c.end();
        return undefined;
      } catch {
        return `no PostgreSQL at ${pgUrl}`;
      }
    })(),
  ]);
  return why.filter(Boolean).join(', ');
}
