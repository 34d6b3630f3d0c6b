import type { Principal } from '../../core/permissions.js';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/database.js';
import type { PlatformEvents } from '../platform-events.js';
import { SqlEventLog, SqlSessionStore } from '../../store/event-log.js';
import { EventJournal } from './event-journal.js';
import { ResumeSessions } from './resume-sessions.js';

export { EventJournal, type JournalRenderer } from './event-journal.js';
export { type ResumeFailure, ResumeSessions } from './resume-sessions.js';

/** Same person, whatever username form they logged in with (only they may resume a session). */
export function identityOf(p: Principal): string {
  return p.ext !== undefined && p.tenantId !== undefined ? `${p.ext}@${p.tenantId}` : `telco:${p.username}`;
}

/** Event continuity of one server: the journal and the resumable sessions (docs/events.md). */
export interface Continuity {
  journal: EventJournal;
  sessions: ResumeSessions;
  /** Stores what is pending; later events are not journaled. */
  close(): Promise<void>;
}

/** What continuity is built from; the composition root supplies it. */
export interface ContinuityDeps {
  config: { eventRetention: number; eventRetentionBytes: number; resumeGraceMs: number };
  log: ConstructorParameters<typeof ResumeSessions>[4];
  db: Db;
  bus: PlatformEvents;
  clock: Clock;
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
  const { config, log } = runtime;
  const journal = await EventJournal.open(
    new SqlEventLog(runtime.db),
    { retentionEvents: config.eventRetention, retentionBytes: config.eventRetentionBytes },
    log,
  );
  runtime.bus.subscribe(journal.onEvent);
  const sessions = new ResumeSessions(
    new SqlSessionStore(runtime.db),
    journal,
    runtime.clock,
    config.resumeGraceMs,
    log,
  );
  await sessions.load();
  runtime.onReset(() => sessions.endDetached());
  let closing: Promise<void> | undefined;
  return {
    journal,
    sessions,
    close: () =>
      (closing ??= (async () => {
        await sessions.close();
        await journal.close();
      })()),
  };
}
