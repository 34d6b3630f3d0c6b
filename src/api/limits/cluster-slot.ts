import type { FastifyReply } from 'fastify';
import { BusyError, type Release, type RequestLimiter } from './request-limiter.js';

/**
 * A REST request's slot on a cluster node (docs/cluster.md, "Security state"): like the
 * standalone slot, held from admission until the response closes, but until the request starts
 * (its `preHandler`) the limiter may take it back, when the client turns out to have been
 * admitted on two nodes at once over its limit. The request then waits for a slot again exactly
 * as a late arrival does: it starts when one frees, or is answered busy after the busy delay.
 */
export class ClusterSlot {
  private release: Release | null = null;
  private endOffer: (() => void) | null = null;
  private waiting = false;
  private started = false;
  private closed = false;
  /** The request's `preHandler` continuation while it waits for a slot taken back. */
  private resume: (() => void) | null = null;

  constructor(
    private readonly limiter: RequestLimiter,
    /** null: a request forwarded here, counted for its client where it arrived. */
    private readonly client: string | null,
    private readonly reply: FastifyReply,
    private readonly refuse: (e: BusyError) => void,
  ) {
    // `on`, not `once`: `close` is idempotent.
    reply.raw.on('close', () => this.close());
  }

  /** The `onRequest` admission: `done` once a slot is held (or never: refused as busy). */
  admit(done: (err?: Error) => void): void {
    const now = this.limiter.tryAcquire(this.client);
    if (now) {
      this.hold(now);
      return done();
    }
    this.wait(done);
  }

  /** The `preHandler`: from here on the slot is the request's until it ends. */
  start(done: () => void): void {
    this.started = true;
    this.endOffer?.();
    this.endOffer = null;
    if (this.waiting) this.resume = done;
    else done();
  }

  private wait(then: (err?: Error) => void): void {
    this.waiting = true;
    this.limiter.acquire(this.client).then(
      (release) => {
        this.waiting = false;
        this.hold(release);
        then();
      },
      (e: unknown) => {
        this.waiting = false;
        if (!(e instanceof BusyError)) return then(e as Error);
        if (!this.reply.sent && !this.closed) this.refuse(e);
      },
    );
  }

  private hold(release: Release): void {
    if (this.closed || this.reply.raw.destroyed || this.reply.raw.writableFinished) {
      this.closed = true;
      release();
      return;
    }
    this.release = release;
    if (this.client !== null && !this.started) {
      this.endOffer = this.limiter.offer(this.client, () => this.revoked());
    }
  }

  /** The limiter took the slot back (it already forgot the offer). */
  private revoked(): void {
    this.endOffer = null;
    const r = this.release;
    this.release = null;
    r?.();
    this.wait(() => {
      const go = this.resume;
      this.resume = null;
      go?.();
    });
  }

  private close(): void {
    this.closed = true;
    this.endOffer?.();
    this.endOffer = null;
    this.release?.();
    this.release = null;
  }
}
