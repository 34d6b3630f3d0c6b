import { connect } from '@nats-io/transport-node';
import pg from 'pg';
import type { DatabaseTarget } from '../../src/store/database.js';
import { NATS_URL, PG_URL } from './cluster-engines.js';

/**
 * The two engines a cluster test needs: PostgreSQL (SWITCHBOARD_TEST_PG_URL, else the local
 * server) and NATS with JetStream (SWITCHBOARD_TEST_NATS_URL, else 127.0.0.1:4222). Where either
 * does not answer, the suite is skipped with one line saying which, except under CI, which must
 * run it: there the missing engine fails the suite.
 */
export interface ClusterServices {
  /** A reason to skip, or false. */
  skip: string | false;
  pgUrl: string;
  natsUrl: string;
  /** A fresh schema on the PostgreSQL server, dropped by `cleanup`. */
  target(): DatabaseTarget;
  cleanup(): Promise<void>;
}

export async function clusterServices(): Promise<ClusterServices> {
  const pgUrl = PG_URL;
  const natsUrl = NATS_URL;
  const missing: string[] = [];
  try {
    const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 2000 });
    await c.connect();
    await c.end();
  } catch {
    missing.push(`PostgreSQL at ${pgUrl}`);
  }
  try {
    const nc = await connect({ servers: natsUrl, timeout: 2000 });
    await nc.close();
  } catch {
    missing.push(`NATS at ${natsUrl}`);
  }
  const ci = process.env.CI && process.env.CI !== 'false';
  if (missing.length && ci)
    throw new Error(`the cluster suites need ${missing.join(' and ')}; CI runs every suite`);
  const skip = missing.length ? `cluster suite skipped: no ${missing.join(', no ')}` : false;
  if (skip) console.log(skip);
  const schemas: string[] = [];
  let n = 0;
  return {
    skip,
    pgUrl,
    natsUrl,
    target() {
      const schema = `sb_cluster_${process.pid}_${Date.now()}_${n++}`;
      schemas.push(schema);
      return { kind: 'postgres', url: pgUrl, schema };
    },
    async cleanup() {
      if (!schemas.length) return;
      const c = new pg.Client({ connectionString: pgUrl });
      await c.connect();
      for (const s of schemas.splice(0)) await c.query(`drop schema if exists ${s} cascade`);
      await c.end();
    },
  };
}
