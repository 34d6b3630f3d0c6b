/**
 * The client side of keeping an event socket open: every `intervalMs` it sends the protocol's
 * keep-alive message, which resets the server's idle time-out (1 hour on both APIs). When
 * nothing at all arrived since the previous keep-alive, whose answer is due, the connection is
 * taken as dead (`onDead`): a half-open TCP connection would otherwise go unnoticed for good.
 */
export class KeepAlive {
  private timer: NodeJS.Timeout | undefined;
  private awaiting = false;
  private heard = false;

  constructor(
    private readonly intervalMs: number,
    private readonly sendKeepAlive: () => void,
    private readonly onDead: () => void,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref?.();
  }

  /** Any frame from the server proves the connection alive. */
  heardFromServer(): void {
    this.heard = true;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.awaiting = false;
    this.heard = false;
  }

  private tick(): void {
    if (this.awaiting && !this.heard) {
      this.stop();
      this.onDead();
      return;
    }
    this.heard = false;
    this.awaiting = true;
    this.sendKeepAlive();
  }
}

export interface KeepAliveOptions {
  /** How often to send a keep-alive (default 30 s). Must stay below the server's idle time-out. */
  keepAliveMs?: number;
  /** The server's idle time-out (the spec's maxIdleTimeout: 1 hour, `--ws-idle-ms`). */
  serverIdleTimeoutMs?: number;
  /**
   * How long the closing handshake of a socket found dead may take before the connection is
   * dropped (default 2 s). The spec asks a client to close gracefully before it opens a new
   * connection: a server that still reads gets the close and frees the client's one socket slot.
   */
  closeTimeoutMs?: number;
}

export const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;

/** The close frame's reason when the keep-alive found the socket dead. */
export const DEAD_SOCKET_CLOSE = { code: 1000, reason: 'no answer to keep-alive' } as const;

export const DEFAULT_KEEP_ALIVE_MS = 30_000;
export const SPEC_IDLE_TIMEOUT_MS = 3_600_000;

/** The keep-alive interval, checked to keep the socket inside the server's idle time-out. */
export function keepAliveInterval(options: KeepAliveOptions): number {
  const idle = options.serverIdleTimeoutMs ?? SPEC_IDLE_TIMEOUT_MS;
  const interval = options.keepAliveMs ?? Math.min(DEFAULT_KEEP_ALIVE_MS, Math.floor(idle / 3));
  if (!(interval > 0)) throw new RangeError('keepAliveMs must be positive');
  if (interval >= idle) {
    throw new RangeError(`keepAliveMs (${interval}) must be below the server's idle time-out (${idle})`);
  }
  return interval;
}
