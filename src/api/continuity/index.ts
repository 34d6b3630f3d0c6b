import type { Principal } from '../../core/permissions.js';
import type { Clock } from '../../core/clock.js';
import type { Membership } from '../../core/cluster.js';
import type { EventStreamSource, StoredSession } from '../../core/event-stream.js';
import type { Db } from '../../store/database.js';
import type { PlatformEvent, PlatformEvents } from '../platform-events.js';
import { SqlEventLog, SqlSessionStore } from '../../store/event-log.js';
import { EventJournal } from './event-journal.js';
import { ResumeSessions } from './resume-sessions.js';

export { EventJournal, type JournalRenderer } from './event-journal.js';
export { type ResumeFailure, ResumeSessions } from './resume-sessions.js';

/** Same person, whatever username form they logged in with (only they may resume a session). */
export function identityOf(p: Principal): string {
  return p.ext !== undefined && p.tenantId !== undefined ? `${p.ext}@${p.tenantId}` : `telco:${p.username}`;
}

/** Where a resume asks to go on from, per tenant. */
export type ResumeCursors = readonly { tenantId: number; after: number }[];

/** Event continuity of one server: the journal and the resumable sessions (docs/events.md). */
export interface Continuity {
  journal: EventJournal;
  sessions: ResumeSessions;
  /**
   * In a cluster, before a resume's synchronous claim and replay: the session as stored (its
   * socket may have been another node's), then, per tenant of `cursors` (given the session as
   * stored, or undefined when there is none), the events since the cursor, read back from the
   * stream where this node lacks them. Resolves to the release of what it holds (call it once the
   * resume is done). Standalone, where everything is at hand: undefined, at once.
   */
  prepareResume(
    id: string,
    cursors: (stored: StoredSession | undefined) => ResumeCursors,
  ): Promise<() => void> | undefined;
  /** Stores what is pending; later events are not journaled. */
  close(): Promise<void>;
}

/** What continuity is built from; the composition root supplies it. */
export interface ContinuityDeps {
  config: { eventRetention: number; eventRetentionBytes: number; resumeGraceMs: number };
  log: ConstructorParameters<typeof ResumeSessions>[4];
  db: Db;
  bus: PlatformEvents;
  /** In a cluster: the cluster's event stream, whose sequences the journal takes. */
  eventStream?: EventStreamSource<PlatformEvent>;
  clock: Clock;
  /** This node (a cluster's id is stored with the sessions its sockets take). */
  membership: Pick<Membership, 'nodeId'>;
  onReset(hook: () => void | Promise<void>): void;
}

const byRuntime = new WeakMap<ContinuityDeps, Promise<Continuity>>();

/**
 * The server's continuity, opened once (both APIs await it before subscribing their fan-outs to
 * the bus, so the journal has sequenced an event before any socket is sent it).
 */
export function continuityFor(runtime: ContinuityDeps): Promise<Continuity> {
  let c = byRuntime.get(runtime);
  if (!c) {
    c = open(runtime);
    byRuntime.set(runtime, c);
  }
  return c;
}

async function open(runtime: ContinuityDeps): Promise<Continuity> {
  const { config, log, eventStream } = runtime;
  const retention = { retentionEvents: config.eventRetention, retentionBytes: config.eventRetentionBytes };
  const journal = eventStream
    ? EventJournal.overStream(eventStream, retention, log)
    : await EventJournal.open(new SqlEventLog(runtime.db), retention, log);
  runtime.bus.subscribe(journal.onEvent);
  const store = new SqlSessionStore(runtime.db, eventStream ? runtime.membership.nodeId : null);
  const sessions = new ResumeSessions(
    store,
    journal,
    runtime.clock,
    config.resumeGraceMs,
    log,
    !!eventStream,
  );
  await sessions.load();
  runtime.onReset(() => sessions.endDetached());
  let closing: Promise<void> | undefined;
  return {
    journal,
    sessions,
    prepareResume: eventStream
      ? async (id, cursors) => journal.ready(cursors(await sessions.fetch(id)))
      : () => undefined,
    close: () =>
      (closing ??= (async () => {
        await sessions.close();
        await journal.close();
      })()),
  };
}
