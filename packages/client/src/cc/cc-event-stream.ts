import { ConnectRefusedError, SwitchboardError } from '../errors.js';
import type { HttpTransport } from '../http/transport.js';
import type { BackoffOptions } from '../socket/backoff.js';
import { type CloseInfo, FrameChannel, HandshakeError } from '../socket/frame-channel.js';
import { judgeFailure } from '../socket/judge.js';
import {
  DEAD_SOCKET_CLOSE,
  DEFAULT_CLOSE_TIMEOUT_MS,
  KeepAlive,
  keepAliveInterval,
  type KeepAliveOptions,
} from '../socket/keep-alive.js';
import { Reconnector, type Session } from '../socket/reconnector.js';
import { Listeners } from '../util/listeners.js';
import type { CcTokens } from './cc-tokens.js';
import type { CcEvent, CcEventFilter, CcSocketAnswer } from './cc-types.js';

/** The event socket's address (spec: `wss://{base_url}/6/v2/sock`). */
export const CC_SOCKET_PATH = '/6/v2/sock';

/** Every category: subscribing to all three is the same as not narrowing. */
export const ALL_CATEGORIES: CcEventFilter[] = ['agent', 'call', 'inbound_queue'];

export interface CcSocketOptions extends KeepAliveOptions {
  reconnect?: BackoffOptions;
  /** Attempts of the first connection when a refusal may pass (default 3). */
  connectAttempts?: number;
  /** Time allowed for the upgrade and each answer of the handshake (default 10 s). */
  handshakeTimeoutMs?: number;
}

export interface CcStreamEvents {
  event(event: CcEvent): void;
  /** Connected (and subscribed again, after a reconnect). */
  connected(info: { reconnect: boolean }): void;
  disconnected(info: CloseInfo): void;
  reconnecting(info: { attempt: number; delayMs: number; error: unknown }): void;
  /** The server answered a keep-alive. */
  keepAlive(): void;
  /** The stream gave up reconnecting (it is closed). */
  error(error: unknown): void;
}

class CcSession implements Session {
  /** Answers to `subscribe` requests, in the order they were sent. */
  readonly pending: ((answer: CcSocketAnswer) => void)[] = [];
  constructor(readonly channel: FrameChannel) {}
  get closed() {
    return this.channel.closed;
  }
  close() {
    this.channel.close(1000, 'client closed');
  }
}

/**
 * The contact-center event socket: `connect` with the Bearer token as the first message (a
 * refused token is renewed once), the application's `subscribe` narrowing, which is sent again
 * after every reconnect, and a keep-alive that repeats that subscription (an idempotent request
 * the server answers) so the idle time-out never fires. Reconnects back off exponentially with
 * jitter.
 */
export class CcEventStream {
  private readonly listeners = new Listeners<CcStreamEvents>();
  private readonly reconnector: Reconnector<CcSession>;
  private readonly keepAlive: KeepAlive;
  /** What the application subscribed to (null: everything its permissions allow). */
  private filter: CcEventFilter[] | null = null;
  /** Event names the server confirmed for the filter; events outside it are not delivered. */
  private accepted: Set<string> | null = null;

  private constructor(
    private readonly transport: HttpTransport,
    private readonly tokens: CcTokens,
    private readonly options: CcSocketOptions,
  ) {
    this.keepAlive = new KeepAlive(
      keepAliveInterval(options),
      () => {
        const s = this.reconnector.session;
        if (!s) return;
        // No answer is left to the liveness check (nothing heard by the next keep-alive).
        this.request(s, this.filter ?? ALL_CATEGORIES).then(
          () => this.listeners.emit('keepAlive'),
          () => {},
        );
      },
      // Closed gracefully first, so the server frees this client's socket before the next one.
      () =>
        void this.reconnector.session?.channel.shutdown(
          DEAD_SOCKET_CLOSE.code,
          DEAD_SOCKET_CLOSE.reason,
          this.closeTimeoutMs,
        ),
    );
    this.reconnector = new Reconnector(() => this.connect(), judgeFailure, options.reconnect ?? {}, {
      connected: (_s, reconnect) => {
        this.keepAlive.start();
        this.listeners.emit('connected', { reconnect });
      },
      disconnected: (info) => {
        this.keepAlive.stop();
        this.listeners.emit('disconnected', info);
      },
      reconnecting: (attempt, delayMs, error) =>
        this.listeners.emit('reconnecting', { attempt, delayMs, error }),
      gaveUp: (error) => this.listeners.emit('error', error),
    });
  }

  static async open(
    transport: HttpTransport,
    tokens: CcTokens,
    options: CcSocketOptions & { events?: CcEventFilter[] } = {},
  ): Promise<CcEventStream> {
    const stream = new CcEventStream(transport, tokens, options);
    stream.filter = options.events ?? null;
    await stream.reconnector.start(options.connectAttempts);
    return stream;
  }

  on<K extends keyof CcStreamEvents>(name: K, listener: CcStreamEvents[K]): () => void {
    return this.listeners.on(name, listener);
  }

  get connected(): boolean {
    return this.reconnector.session !== undefined;
  }

  /**
   * Narrows the stream to these event names and/or categories (kept across reconnects).
   * Resolves with the event names the server confirmed.
   */
  async subscribe(events: CcEventFilter[]): Promise<string[]> {
    const session = this.reconnector.session;
    if (!session) throw new SwitchboardError('the contact-center event socket is not connected');
    const answer = await this.request(session, events);
    if (!answer.success) throw new SwitchboardError(`subscribe refused: ${answer.reason}`);
    this.filter = events;
    return 'events' in answer ? answer.events : [];
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

  private get closeTimeoutMs(): number {
    return this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
  }

  private async connect(): Promise<CcSession> {
    const url = new URL(CC_SOCKET_PATH, this.transport.baseUrl + '/');
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let session = await this.connectOnce(url.toString(), await this.tokens.accessToken());
    if (session instanceof Refused) {
      // The token may have expired since it was issued: renew it once and try again.
      this.tokens.rejected(session.token);
      session = await this.connectOnce(url.toString(), await this.tokens.accessToken());
      if (session instanceof Refused) throw new ConnectRefusedError('Unauthorized', false);
    }
    try {
      if (this.filter) {
        const answer = await this.request(session, this.filter);
        if (!answer.success) throw new ConnectRefusedError(`subscribe: ${answer.reason}`, false);
      }
      return session;
    } catch (e) {
      await session.channel.shutdown(1000, 'subscribe failed', this.closeTimeoutMs);
      throw e;
    }
  }

  private async connectOnce(url: string, token: string): Promise<CcSession | Refused> {
    const timeout = this.options.handshakeTimeoutMs ?? 10_000;
    const channel = await FrameChannel.open(url, { 'user-agent': this.transport.userAgent }, timeout);
    try {
      channel.send(JSON.stringify({ request: 'connect', token }));
      const answer = JSON.parse(await channel.next(timeout, 'connect answer')) as CcSocketAnswer;
      if (answer.response !== 'connect')
        throw new HandshakeError(`expected the connect answer, got ${answer.response}`);
      if (!answer.success) {
        if (answer.reason === 'Unauthorized') {
          // Gone before the retry with a renewed token opens the next socket.
          await channel.shutdown(1000, 'token refused', this.closeTimeoutMs);
          return new Refused(token);
        }
        // "Too many connections": this client's previous socket may not be gone yet.
        throw new ConnectRefusedError(answer.reason, true);
      }
      const session = new CcSession(channel);
      channel.listen((text) => this.onFrame(session, text));
      return session;
    } catch (e) {
      await channel.shutdown(1000, 'connect failed', this.closeTimeoutMs);
      throw e;
    }
  }

  private request(session: CcSession, events: CcEventFilter[]): Promise<CcSocketAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new HandshakeError('no answer to subscribe')),
        this.options.handshakeTimeoutMs ?? 10_000,
      );
      timer.unref?.();
      session.pending.push((answer) => {
        clearTimeout(timer);
        if (answer.success && 'events' in answer) this.accepted = new Set(answer.events);
        resolve(answer);
      });
      session.channel.send(JSON.stringify({ request: 'subscribe', events }));
    });
  }

  private onFrame(session: CcSession, text: string): void {
    this.keepAlive.heardFromServer();
    let frame: CcEvent | CcSocketAnswer;
    try {
      frame = JSON.parse(text) as CcEvent | CcSocketAnswer;
    } catch {
      return;
    }
    if ('response' in frame) {
      if (frame.response === 'subscribe') session.pending.shift()?.(frame);
      return;
    }
    if (typeof frame.event !== 'string') return;
    if (this.accepted && !this.accepted.has(frame.event)) return;
    this.listeners.emit('event', frame);
  }
}

class Refused {
  constructor(readonly token: string) {}
}
