import type { LoggedEvent } from '../../core/event-stream.js';

/** One tenant's stream in the journal: its retained events, in order, and where it stands. */
export class Stream {
  entries: LoggedEvent[] = [];
  head = 0;
  bytes = 0;
  /** A resume must start at or after `floor - 1` (below it the stream has a crash gap). */
  crashFloor = 0;
  prunedBelow = 0;
  /** Cluster: every event of the tenant after this sequence is retained (or was evicted, moving it). */
  complete = 0;
  constructor(
    readonly tenantId: number,
    public next: number,
    public reserved: number,
  ) {}

  firstRetained(): number {
    return this.head < this.entries.length ? this.entries[this.head].seq : this.next;
  }
}

export const sizeOf = (e: LoggedEvent) => e.body.length + e.tags.reduce((n, t) => n + t.length + 3, 16);
