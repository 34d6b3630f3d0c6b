import type { BackoffOptions } from './backoff.js';
import type { FrameChannel } from './frame-channel.js';
import { judgeFailure } from './judge.js';
import {
  DEAD_SOCKET_CLOSE,
  DEFAULT_CLOSE_TIMEOUT_MS,
  KeepAlive,
  keepAliveInterval,
  type KeepAliveOptions,
} from './keep-alive.js';
import { type ReconnectHooks, Reconnector, type Session } from './reconnector.js';

export interface EventSocketOptions extends KeepAliveOptions {
  reconnect?: BackoffOptions;
  /** Attempts of the first connection when a refusal may pass (default 3). */
  connectAttempts?: number;
  /** Time allowed for the upgrade and each frame of the handshake (default 10 s). */
  handshakeTimeoutMs?: number;
}

/** A session that is one WebSocket connection. */
export class ChannelSession implements Session {
  constructor(readonly channel: FrameChannel) {}
  get closed() {
    return this.channel.closed;
  }
  close() {
    this.channel.close(1000, 'client closed');
  }
}

export interface EventSocketHooks<S extends ChannelSession> extends ReconnectHooks<S> {
  /** Sends the protocol's keep-alive, which the server answers. */
  sendKeepAlive(session: S): void;
}

/**
 * What both event sockets do alike: one session kept alive by the `Reconnector` (backoff with
 * jitter), a keep-alive while connected that takes a silent connection for dead, and a closing
 * handshake on close. The protocol's handshake (`connect`) and frames are the owner's.
 */
export class EventSocket<S extends ChannelSession> {
  /** The owner reports every frame to it (`heardFromServer`). */
  readonly keepAlive: KeepAlive;
  private readonly reconnector: Reconnector<S>;

  constructor(
    connect: () => Promise<S>,
    private readonly options: EventSocketOptions,
    hooks: EventSocketHooks<S>,
  ) {
    this.keepAlive = new KeepAlive(
      keepAliveInterval(options),
      () => {
        const session = this.reconnector.session;
        if (session) hooks.sendKeepAlive(session);
      },
      // Closed gracefully, not just dropped: the server frees this client's socket slot, so the
      // replacement is not refused while the old socket still counts.
      () =>
        void this.reconnector.session?.channel.shutdown(
          DEAD_SOCKET_CLOSE.code,
          DEAD_SOCKET_CLOSE.reason,
          this.closeTimeoutMs,
        ),
    );
    this.reconnector = new Reconnector(connect, judgeFailure, options.reconnect ?? {}, {
      connected: (session, reconnect) => {
        this.keepAlive.start();
        hooks.connected(session, reconnect);
      },
      disconnected: (info) => {
        this.keepAlive.stop();
        hooks.disconnected(info);
      },
      reconnecting: (attempt, delayMs, error) => hooks.reconnecting(attempt, delayMs, error),
      gaveUp: (error) => hooks.gaveUp(error),
    });
  }

  /** The current session; undefined while reconnecting and once closed. */
  get session(): S | undefined {
    return this.reconnector.session;
  }

  get closeTimeoutMs(): number {
    return this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  }

  get handshakeTimeoutMs(): number {
    return this.options.handshakeTimeoutMs ?? 10_000;
  }

  /** The first connection (its failure rejects). */
  start(): Promise<S> {
    return this.reconnector.start(this.options.connectAttempts);
  }

  /**
   * Stops reconnecting and closes the socket with a closing handshake. Resolves once it is
   * closed (dropped after `closeTimeoutMs`), so a new socket of this client can be opened.
   */
  async close(): Promise<void> {
    this.keepAlive.stop();
    const session = this.reconnector.session;
    this.reconnector.close();
    await session?.channel.shutdown(1000, 'client closed', this.closeTimeoutMs);
  }
}
