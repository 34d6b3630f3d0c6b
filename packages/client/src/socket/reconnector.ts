import { SocketClosedError } from '../errors.js';
import { backoffDelay, type BackoffOptions } from './backoff.js';
import type { CloseInfo } from './frame-channel.js';

/** One established connection of a protocol: ready for events until `closed` settles. */
export interface Session {
  readonly closed: Promise<CloseInfo>;
  close(): void;
}

/** What to do after a failed attempt: try again (not before `minDelayMs`), or give up. */
export type Verdict = { retry: true; minDelayMs?: number } | { retry: false };

export interface ReconnectHooks<S extends Session> {
  connected(session: S, reconnect: boolean): void;
  disconnected(info: CloseInfo): void;
  reconnecting(attempt: number, delayMs: number, error: unknown): void;
  /** No further attempt will be made (a refusal that retrying cannot fix). */
  gaveUp(error: unknown): void;
}

/**
 * Keeps one session of a protocol alive: when it closes for any reason but `close()`, it opens a
 * new one after an exponentially growing, jittered delay, until it succeeds or `judge` says a
 * failure is final (bad credentials, lock-out: retrying those would only lock the user out).
 */
export class Reconnector<S extends Session> {
  private current: S | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly connect: () => Promise<S>,
    private readonly judge: (error: unknown) => Verdict,
    private readonly backoff: BackoffOptions,
    private readonly hooks: ReconnectHooks<S>,
  ) {}

  get session(): S | undefined {
    return this.current;
  }

  /**
   * The first connection. A refusal that may pass (a previous socket of this client not yet
   * gone, a busy server, a network error) is tried `attempts` times in all, with backoff; then,
   * or on a final refusal, the error is the caller's.
   */
  async start(attempts = 3): Promise<S> {
    for (let attempt = 0; ; attempt++) {
      try {
        const session = await this.connect();
        if (this.stopped) {
          session.close();
          throw new SocketClosedError('closed while connecting');
        }
        this.adopt(session, false);
        return session;
      } catch (error) {
        const verdict = this.judge(error);
        if (this.stopped || !verdict.retry || attempt + 1 >= attempts) throw error;
        await this.sleep(Math.max(backoffDelay(attempt, this.backoff), verdict.minDelayMs ?? 0));
      }
    }
  }

  close(): void {
    this.stopped = true;
    this.wake?.();
    this.current?.close();
    this.current = undefined;
  }

  private adopt(session: S, reconnect: boolean): void {
    this.current = session;
    this.hooks.connected(session, reconnect);
    void session.closed.then((info) => {
      if (this.current !== session) return;
      this.current = undefined;
      this.hooks.disconnected(info);
      if (!this.stopped) void this.reconnect();
    });
  }

  private async reconnect(): Promise<void> {
    let minDelay = 0;
    let lastError: unknown;
    for (let attempt = 0; !this.stopped; attempt++) {
      const delay = Math.max(backoffDelay(attempt, this.backoff), minDelay);
      this.hooks.reconnecting(attempt + 1, delay, lastError);
      await this.sleep(delay);
      if (this.stopped) return;
      try {
        const session = await this.connect();
        if (this.stopped) return session.close();
        this.adopt(session, true);
        return;
      } catch (error) {
        lastError = error;
        const verdict = this.judge(error);
        if (!verdict.retry) {
          this.stopped = true;
          this.hooks.gaveUp(error);
          return;
        }
        minDelay = verdict.minDelayMs ?? 0;
      }
    }
  }

  /** A delay that `close()` cuts short. Not unref'd: a reconnecting client keeps the process up. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
