/**
 * Reads a tenant's events back from the cluster's event stream, for a resume whose events this
 * node did not keep (the socket's session lived on another node, or this node started later).
 *
 * Whether the stream still holds every event of the tenant after a cursor is decided from what
 * JetStream removes: by its limits it only ever removes a stream's oldest messages (age) or a
 * subject's oldest (the per-tenant count). So if the tenant's oldest stored event is at or before
 * the cursor's next sequence, nothing after the cursor is gone; if it is later (or the tenant has
 * none), nothing is gone only when the stream removed nothing past the cursor and the tenant is
 * below the stream's count limit: its own, not this node's flag (the node that started last set
 * it), and the lowest this node has known it to be (a raised limit does not bring back what a
 * lower one removed; a node started after the raise does not know the lower one: docs/cluster.md).
 * Otherwise the answer is "no longer held" and the resume fails with reason `retention`, never
 * with a silent gap. A read whose range lost its first event meanwhile (the limits removing
 * oldest first: checked once more at the end) is "no longer held" too; one the server stopped
 * answering throws: the events are not known to be whole.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { PlatformEvent } from '../api/platform-events.js';
import { decodeEvent } from './event-codec.js';
import type { EventStreamNames } from './event-stream.js';

const BATCH = 512;

export class EventReader {
  /**
   * The lowest per-tenant limit this node has known the stream to have: a limit raised since
   * (another node started with a larger `--event-retention`) does not bring back what the lower
   * one removed, so the count is judged against the lower one.
   */
  private lowestLimit: number;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: EventStreamNames,
    /** The stream's per-tenant limit when this node started (the lower one, if it changed it). */
    limitAtStart = 0,
  ) {
    this.lowestLimit = limitAtStart > 0 ? limitAtStart : Infinity;
  }

  async read(
    tenantId: number,
    after: number,
    upTo: number,
  ): Promise<{ seq: number; event: PlatformEvent }[] | undefined> {
    if (upTo <= after) return [];
    const subject = this.names.subjectOf(tenantId);
    const { stream } = this.names;
    const oldest = await this.jsm.direct.getMessage(stream, { seq: 1, next_by_subj: subject });
    if (!oldest || oldest.seq > after + 1) {
      const info = await this.jsm.streams.info(stream, { subjects_filter: subject });
      const count = info.state.subjects?.[subject] ?? 0;
      const limit = info.config.max_msgs_per_subject;
      if (limit > 0) this.lowestLimit = Math.min(this.lowestLimit, limit);
      if (info.state.first_seq > after + 1 || count >= this.lowestLimit) return undefined;
    }
    const first = await this.jsm.direct.getMessage(stream, { seq: after + 1, next_by_subj: subject });
    if (!first || first.seq > upTo) return [];
    const read = await this.readFrom(subject, first.seq, upTo);
    // The limits remove the oldest first: while the range's first event is still stored, nothing
    // after it went during the read (the consumer would have skipped it silently).
    const still =
      read && (await this.jsm.direct.getMessage(stream, { seq: first.seq, next_by_subj: subject }));
    return still && still.seq === first.seq ? read : undefined;
  }

  /** The subject's events from `from` (stored when asked) up to `upTo`; undefined when `from` went. */
  private async readFrom(
    subject: string,
    from: number,
    upTo: number,
  ): Promise<{ seq: number; event: PlatformEvent }[] | undefined> {
    const consumer = await this.js.consumers.get(this.names.stream, {
      filter_subjects: subject,
      opt_start_seq: from,
    });
    const out: { seq: number; event: PlatformEvent }[] = [];
    try {
      for (;;) {
        let pending = 0;
        let got = 0;
        for await (const m of await consumer.fetch({ max_messages: BATCH, expires: 2_000 })) {
          got++;
          // The limits remove the oldest first: the first one gone means the read would have a gap.
          if (out.length === 0 && m.seq !== from) return undefined;
          pending = m.info.pending;
          if (m.seq > upTo) return out;
          out.push({ seq: m.seq, event: decodeEvent(m.data) });
          if (m.seq === upTo || pending === 0) return out;
        }
        if (got === 0)
          throw new Error(
            `the event stream answered nothing after ${out.at(-1)?.seq ?? from - 1} (up to ${upTo})`,
          );
      }
    } finally {
      await consumer.delete().catch(() => {});
    }
  }
}
