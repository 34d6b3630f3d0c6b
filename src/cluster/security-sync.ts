import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { SqlSharedLockouts } from '../store/shared-lockouts.js';
import { SqlSharedSocketClaims } from '../store/shared-socket-claims.js';
import type { Db } from '../store/database.js';
import { InflightSync } from './inflight-sync.js';

/**
 * The security state of a cluster node (docs/cluster.md, "Security state"): failed logins and
 * socket claims live in the shared database; every lock-out is announced on
 * `<prefix>.sec.locked` so each node also refuses credentials it had verified and cached before
 * (while its NATS connection is down, and once after it comes back, it asks the database instead);
 * REST requests in flight per client are announced by every node and summed (inflight-sync.ts).
 */
export interface ClusterSecurity {
  lockouts: SqlSharedLockouts;
  socketClaims: SqlSharedSocketClaims;
  inflight: InflightSync;
  close(): Promise<void>;
}

export interface ClusterSecurityDeps {
  db: Db;
  nats: NatsConnection;
  prefix: string;
  nodeId: string;
  /** Claims of a node that stops renewing them stop counting after this long (the lease TTL). */
  ttlMs: number;
  log: Logger;
}

export function startClusterSecurity(deps: ClusterSecurityDeps): ClusterSecurity {
  const { db, nats, prefix, nodeId, ttlMs, log } = deps;
  const subject = `${prefix}.sec.locked`;
  const lockouts = new SqlSharedLockouts(db, (key, until) => {
    nats.publish(subject, JSON.stringify({ key, until }));
  });
  const sub = nats.subscribe(subject, {
    callback: (err, msg) => {
      if (err) return log.warn({ err }, 'lock-out announcements stopped');
      try {
        const { key, until } = msg.json<{ key: unknown; until: unknown }>();
        if (typeof key === 'string' && typeof until === 'number') lockouts.heard(key, until);
      } catch (e) {
        log.warn({ err: e }, 'unreadable lock-out announcement');
      }
    },
  });
  // Lock-outs announced while the connection is down never reach this node.
  let closed = false;
  void (async () => {
    for await (const s of nats.status()) {
      if (closed) return;
      if (s.type === 'disconnect' || s.type === 'reconnecting') lockouts.setHearing(false);
      else if (s.type === 'reconnect') lockouts.setHearing(true);
    }
  })().catch(() => {});
  const socketClaims = new SqlSharedSocketClaims(db, nodeId, ttlMs, (err) =>
    log.warn({ err }, 'socket claims: a database write failed (tried again at the next renewal)'),
  );
  let renewing: Promise<void> | undefined;
  const renew = setInterval(
    () => {
      // One renewal at a time: on a slow database the next waits for the interval after.
      if (renewing) return;
      renewing = socketClaims
        .renew()
        .catch((err: unknown) => log.warn({ err }, 'socket claims not renewed'))
        .finally(() => (renewing = undefined));
    },
    Math.max(100, Math.floor(ttlMs / 3)),
  );
  renew.unref();
  const inflight = new InflightSync({ nats, prefix, nodeId, ttlMs, log });
  return {
    lockouts,
    socketClaims,
    inflight,
    async close() {
      clearInterval(renew);
      inflight.close();
      closed = true;
      sub.unsubscribe();
      // A renewal under way could take claims again after they were released.
      await renewing;
      await socketClaims.releaseAll().catch(() => {});
    },
  };
}
