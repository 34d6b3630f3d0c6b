import {
  createInbox,
  headers,
  type Msg,
  type NatsConnection,
  type Subscription,
} from '@nats-io/transport-node';

/**
 * The forwarding node's requests to an owner (docs/cluster.md § Forwarding), answered on one
 * inbox subscription of its own. Why not `nats.request`: for each request nats.js draws a random
 * token, arms a timer behind a promise of its own, races two promises, and on every answer builds
 * a `RequestError` with its stack (RequestOne.cancel rejects the settled promise, whatever
 * `noAsyncTraces` says); the owner-lost watch added an interval per request on top. Here a request
 * is a counter in the reply subject and an entry in a map, and one sweep every `pollMs`, running
 * only while requests are pending, ends those whose time ran out or whose owner was lost
 * (docs/benchmarks.md, "Cluster forwarding").
 *
 * An answer larger than one NATS message may be (the server's `max_payload`, 1 MiB by default: a
 * long list with `expand`) comes in parts, each under the `Sb-Part: <i>/<n>` header, on the same
 * reply subject: NATS keeps one connection's messages to one subscriber in order, so the parts
 * are joined as they come (`respond` sends them).
 */

/** The header of an answer sent in parts: `<i>/<n>`, i from 1. */
export const PART_HEADER = 'Sb-Part';
/** Room for a part's header and the protocol's own bytes within `max_payload`. */
const PART_OVERHEAD = 256;
/** The NATS server's default `max_payload`, for a connection that has not heard the server yet. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** Why a request got no answer: `timeout`, `lost` (its `lost()` held for the grace), `failed` (NATS). */
export class NoAnswer extends Error {
  constructor(
    readonly why: 'timeout' | 'lost' | 'failed',
    options?: { cause?: unknown },
  ) {
    super(`no answer: ${why}`, options);
  }
}

interface Pending {
  resolve: (answer: Uint8Array | undefined) => void;
  reject: (e: NoAnswer) => void;
  deadline: number;
  lost: (() => boolean) | undefined;
  lostAt: number | undefined;
  /** The parts of an answer sent in parts, so far. */
  parts?: Uint8Array[];
}

export class ReplyMux {
  private readonly inbox = `${createInbox()}.`;
  private sub: Subscription | undefined;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly nats: NatsConnection,
    private readonly pollMs: number,
    private readonly lostGraceMs: number,
  ) {}

  /**
   * Publishes `data` on `subject` and resolves the answer, or undefined when no one listens there
   * (NATS's no-responders status). Rejects with `NoAnswer` after `timeoutMs`, `lostGraceMs` after
   * `lost()` first says the node asked no longer runs what the request concerns, or when NATS
   * fails it.
   */
  request(
    subject: string,
    data: Uint8Array,
    timeoutMs: number,
    lost?: () => boolean,
  ): Promise<Uint8Array | undefined> {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      try {
        this.subscribed();
        this.nats.publish(subject, data, { reply: this.inbox + id });
      } catch (e) {
        reject(new NoAnswer('failed', { cause: e }));
        return;
      }
      this.pending.set(id, { resolve, reject, deadline: Date.now() + timeoutMs, lost, lostAt: undefined });
      if (this.sweeper === undefined) {
        this.sweeper = setInterval(() => this.sweep(), this.pollMs);
        this.sweeper.unref();
      }
    });
  }

  private subscribed(): void {
    if (this.sub && !this.sub.isClosed()) return;
    this.sub = this.nats.subscribe(`${this.inbox}*`, {
      callback: (err, msg) => {
        if (err) return this.failAll(err);
        const id = Number(msg.subject.slice(this.inbox.length));
        const p = this.pending.get(id);
        if (!p) return;
        const part = msg.headers?.get(PART_HEADER);
        if (part) return this.part(id, p, part, msg.data);
        // Another node's whole answer amid this one's parts (two holders of a socket answered
        // during its handover): the answer under way is the one that counts.
        if (p.parts) return;
        this.pending.delete(id);
        // An empty message with status 503: NATS found no subscriber on the subject.
        p.resolve(msg.data.length === 0 && msg.headers?.code === 503 ? undefined : msg.data);
      },
    });
  }

  private part(id: number, p: Pending, header: string, data: Uint8Array): void {
    const [i, n] = header.split('/').map(Number);
    const parts = (p.parts ??= []);
    if (i !== parts.length + 1 || !(n! >= i!)) {
      this.pending.delete(id);
      p.reject(new NoAnswer('failed', { cause: new Error(`answer part ${header} after ${parts.length}`) }));
      return;
    }
    parts.push(data);
    if (i < n!) return;
    this.pending.delete(id);
    p.resolve(Buffer.concat(parts));
  }

  private sweep(): void {
    if (this.pending.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
      return;
    }
    if (!this.sub || this.sub.isClosed()) return this.failAll(new Error('the NATS connection closed'));
    const now = Date.now();
    for (const [id, p] of this.pending) {
      if (p.lostAt === undefined && p.lost?.()) p.lostAt = now;
      const why =
        now >= p.deadline
          ? 'timeout'
          : p.lostAt !== undefined && now - p.lostAt >= this.lostGraceMs
            ? 'lost'
            : undefined;
      if (why === undefined) continue;
      this.pending.delete(id);
      p.reject(new NoAnswer(why));
    }
  }

  private failAll(cause: unknown): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(new NoAnswer('failed', { cause }));
  }
}

/**
 * Answers a request with `data`, in parts when it is larger than one NATS message may be (read
 * back by `ReplyMux`). `whole`: a request that was not sent through a `ReplyMux` (a request for
 * every node), which cannot join parts; an answer too large for it is not sent, and false says so.
 * Never throws: a connection that closed meanwhile loses the answer, as the asker then learns.
 */
export function respond(
  nats: Pick<NatsConnection, 'info'>,
  msg: Msg,
  data: Uint8Array,
  whole = false,
): boolean {
  const max = nats.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
  try {
    if (data.length <= max) return msg.respond(data);
    if (whole) return false;
    const size = max - PART_OVERHEAD;
    const n = Math.ceil(data.length / size);
    for (let i = 0; i < n; i++) {
      const h = headers();
      h.set(PART_HEADER, `${i + 1}/${n}`);
      if (!msg.respond(data.subarray(i * size, (i + 1) * size), { headers: h })) return false;
    }
    return true;
  } catch {
    return false;
  }
}
