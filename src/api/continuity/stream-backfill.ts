/**
 * Reads back into a cluster node's journal the events of a tenant it did not keep, so that a
 * resume can replay them: the socket's session lived on another node, or this node started or
 * began to follow the tenant after the cursor. The range read is (cursor, `complete`], where
 * `complete` is the sequence after which the journal holds every event of the tenant; the events
 * read are rendered as the live ones are, put in front of those retained, and the retention
 * bounds applied again (so a resume reaching further back than they allow still fails with
 * `retention`). Fills of one tenant run one after another.
 */
import type { EventStreamSource, LoggedEvent } from '../../core/event-stream.js';
import type { PlatformEvent } from '../platform-events.js';
import { sizeOf, type Stream } from './journal-stream.js';

type Render = (e: PlatformEvent) => Omit<LoggedEvent, 'tenantId' | 'seq'> | null;

export class StreamBackfill {
  private readonly filling = new WeakMap<Stream, Promise<void>>();

  constructor(
    private readonly source: EventStreamSource<PlatformEvent>,
    private readonly render: Render,
    private readonly log: { warn(obj: object, msg: string): void },
  ) {}

  /** Brings `s.complete` down to `after` when the stream still holds the events; `trim` applies the bounds. */
  fill(s: Stream, after: number, trim: (s: Stream) => void): Promise<void> {
    const run = (this.filling.get(s) ?? Promise.resolve()).then(() => this.once(s, after, trim));
    this.filling.set(
      s,
      run.catch(() => {}),
    );
    return run;
  }

  private async once(s: Stream, after: number, trim: (s: Stream) => void): Promise<void> {
    // The bounds may evict while the stream is read (`complete` moves up): then read again.
    for (let tries = 0; tries < 3 && after < s.complete; tries++) {
      const upTo = s.complete;
      const read = await this.source.read(s.tenantId, after, upTo);
      if (!read) {
        this.log.warn({ tenantId: s.tenantId, after }, 'resume: the event stream no longer holds the events');
        return;
      }
      if (s.complete !== upTo) continue;
      const older: LoggedEvent[] = [];
      for (const { seq, event } of read) {
        if (seq <= after || seq > upTo) continue;
        const r = this.render(event);
        if (r) older.push({ tenantId: s.tenantId, seq, ...r });
      }
      s.entries = [...older, ...s.entries.slice(s.head)];
      s.head = 0;
      for (const e of older) s.bytes += sizeOf(e);
      s.complete = after;
      trim(s);
      return;
    }
  }
}
