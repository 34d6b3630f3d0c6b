import type { Principal } from '../../core/permissions.js';
import type { Runtime } from '../../server/runtime.js';
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

const byRuntime = new WeakMap<Runtime, Promise<Continuity>>();

/**
 * The server's continuity, opened once (both APIs await it before subscribing their fan-outs to
 * the bus, so the journal has sequenced an event before any socket is sent it).
 */
export function continuityFor(runtime: Runtime): Promise<Continuity> {
  let c = byRuntime.get(runtime);
  if (!c) {
    c = open(runtime);
    byRuntime.set(runtime, c);
  }
  return c;
}

async function open(runtime: Runtime): Promise<Continuity> {
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
