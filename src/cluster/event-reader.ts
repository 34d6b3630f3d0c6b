/**
 * Reads a tenant's events back from the cluster's event stream, for a resume whose events this
 * node did not keep (the socket's session lived on another node, or this node started later).
 *
 * Whether the stream still holds every event of the tenant after a cursor is decided from what
 * JetStream removes: by its limits it only ever removes a stream's oldest messages (age) or a
 * subject's oldest (the per-tenant count). So if the tenant's oldest stored event is at or before
 * the cursor's next sequence, nothing after the cursor is gone; if it is later (or the tenant has
 * none), nothing is gone only when the stream removed nothing past the cursor and the tenant is
 * below the stream's own count limit (as configured now: the node that started last set it, from
 * its flags, which may not be this node's). Otherwise the answer is "no longer held" and the
 * resume fails with reason `retention`, never with a silent gap. A read that stops short (the
 * server answered nothing in time, or the first event went while the read began) throws: the
 * events are not known to be whole.
 */
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { PlatformEvent } from '../api/platform-events.js';
import { decodeEvent } from './event-codec.js';
import type { EventStreamNames } from './event-stream.js';

const BATCH = 512;

export class EventReader {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly names: EventStreamNames,
  ) {}

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
      if (info.state.first_seq > after + 1 || (limit > 0 && count >= limit)) return undefined;
    }
    const first = await this.jsm.direct.getMessage(stream, { seq: after + 1, next_by_subj: subject });
    if (!first || first.seq > upTo) return [];
    const consumer = await this.js.consumers.get(stream, {
      filter_subjects: subject,
      opt_start_seq: first.seq,
    });
    const out: { seq: number; event: PlatformEvent }[] = [];
    try {
      for (;;) {
        let pending = 0;
        let got = 0;
        for await (const m of await consumer.fetch({ max_messages: BATCH, expires: 2_000 })) {
          got++;
          // The limits remove the oldest first: the first one gone means the read would have a gap.
          if (out.length === 0 && m.seq !== first.seq) return undefined;
          pending = m.info.pending;
          if (m.seq > upTo) return out;
          out.push({ seq: m.seq, event: decodeEvent(m.data) });
          if (m.seq === upTo || pending === 0) return out;
        }
        if (got === 0)
          throw new Error(
            `the event stream answered nothing after ${out.at(-1)?.seq ?? after} (up to ${upTo})`,
          );
      }
    } finally {
      await consumer.delete().catch(() => {});
    }
  }
}
