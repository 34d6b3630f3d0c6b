import { ConnectRefusedError, SwitchboardError } from '../errors.js';
import type { HttpTransport } from '../http/transport.js';
import { ChannelSession, EventSocket, type EventSocketOptions } from '../socket/event-socket.js';
import { type CloseInfo, FrameChannel, HandshakeError } from '../socket/frame-channel.js';
import { Listeners } from '../util/listeners.js';
import type { CcTokens } from './cc-tokens.js';
import type { CcEvent, CcEventFilter, CcSocketAnswer } from './cc-types.js';

/** The event socket's address (spec: `wss://{base_url}/6/v2/sock`). */
export const CC_SOCKET_PATH = '/6/v2/sock';

/** Every category: subscribing to all three is the same as not narrowing. */
export const ALL_CATEGORIES: CcEventFilter[] = ['agent', 'call', 'inbound_queue'];

export interface CcSocketOptions extends EventSocketOptions {
  /** Time allowed for the upgrade and each answer of the handshake (default 10 s). */
  handshakeTimeoutMs?: number;
  /**
   * Resume after a lost socket (default true): the server gives back every event missed within its
   * grace period. When it cannot (or this is false), `connected` says `resumed: false`: events
   * were lost meanwhile (docs/events.md).
   */
  resume?: boolean;
}

export interface CcStreamEvents {
  event(event: CcEvent): void;
  /** Connected (and subscribed again, after a reconnect); `resumed` (with resume on): no event was lost. */
  connected(info: { reconnect: boolean; resumed?: boolean }): void;
  disconnected(info: CloseInfo): void;
  reconnecting(info: { attempt: number; delayMs: number; error: unknown }): void;
  /** The server answered a keep-alive. */
  keepAlive(): void;
  /** The stream gave up reconnecting (it is closed). */
  error(error: unknown): void;
}

class CcSession extends ChannelSession {
  /** Answers to `subscribe` requests, in the order they were sent. */
  readonly pending: ((answer: CcSocketAnswer) => void)[] = [];
  resumed = false;
}

/** The connect answer's additions for a client that asked for resume. */
interface ResumeAnswer {
  session?: string;
  resumed?: boolean;
  sequences?: Record<string, number>;
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
  private readonly socket: EventSocket<CcSession>;
  /** What the application subscribed to (null: everything its permissions allow). */
  private filter: CcEventFilter[] | null = null;
  /** Event names the server confirmed for the filter; events outside it are not delivered. */
  private accepted: Set<string> | null = null;
  /** The resumable session and, per tenant, the sequence of the last event delivered. */
  private cursor: { session: string; after: Record<string, number> } | undefined;

  private constructor(
    private readonly transport: HttpTransport,
    private readonly tokens: CcTokens,
    private readonly options: CcSocketOptions,
  ) {
    this.socket = new EventSocket(() => this.connect(), options, {
      sendKeepAlive: (s) =>
        // No answer is left to the liveness check (nothing heard by the next keep-alive).
        this.request(s, this.filter ?? ALL_CATEGORIES).then(
          () => this.listeners.emit('keepAlive'),
          () => {},
        ),
      connected: (s, reconnect) =>
        this.listeners.emit('connected', this.resuming ? { reconnect, resumed: s.resumed } : { reconnect }),
      disconnected: (info) => this.listeners.emit('disconnected', info),
      reconnecting: (attempt, delayMs, error) =>
        this.listeners.emit('reconnecting', { attempt, delayMs, error }),
      gaveUp: (error) => this.listeners.emit('error', error),
    });
  }

  private get resuming(): boolean {
    return this.options.resume ?? true;
  }

  static async open(
    transport: HttpTransport,
    tokens: CcTokens,
    options: CcSocketOptions & { events?: CcEventFilter[] } = {},
  ): Promise<CcEventStream> {
    const stream = new CcEventStream(transport, tokens, options);
    stream.filter = options.events ?? null;
    await stream.socket.start();
    return stream;
  }

  on<K extends keyof CcStreamEvents>(name: K, listener: CcStreamEvents[K]): () => void {
    return this.listeners.on(name, listener);
  }

  get connected(): boolean {
    return this.socket.session !== undefined;
  }

  /**
   * Narrows the stream to these event names and/or categories (kept across reconnects).
   * Resolves with the event names the server confirmed.
   */
  async subscribe(events: CcEventFilter[]): Promise<string[]> {
    const session = this.socket.session;
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
  close(): Promise<void> {
    return this.socket.close();
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
      await session.channel.shutdown(1000, 'subscribe failed', this.socket.closeTimeoutMs);
      throw e;
    }
  }

  private async connectOnce(url: string, token: string): Promise<CcSession | Refused> {
    const timeout = this.socket.handshakeTimeoutMs;
    const channel = await FrameChannel.open(url, { 'user-agent': this.transport.userAgent }, timeout);
    try {
      const resume = this.resuming ? (this.cursor ?? true) : undefined;
      channel.send(JSON.stringify({ request: 'connect', token, ...(resume ? { resume } : {}) }));
      const answer = JSON.parse(await channel.next(timeout, 'connect answer')) as CcSocketAnswer;
      if (answer.response !== 'connect')
        throw new HandshakeError(`expected the connect answer, got ${answer.response}`);
      if (!answer.success) {
        if (answer.reason === 'Unauthorized') {
          // Gone before the retry with a renewed token opens the next socket.
          await channel.shutdown(1000, 'token refused', this.socket.closeTimeoutMs);
          return new Refused(token);
        }
        // "Too many connections": this client's previous socket may not be gone yet.
        throw new ConnectRefusedError(answer.reason, true);
      }
      const session = new CcSession(channel);
      const r = answer as ResumeAnswer;
      if (r.session && r.sequences) {
        session.resumed = r.resumed === true;
        this.cursor = {
          session: r.session,
          after: session.resumed ? { ...r.sequences, ...this.cursor?.after } : { ...r.sequences },
        };
      }
      channel.listen((text) => this.onFrame(session, text));
      return session;
    } catch (e) {
      await channel.shutdown(1000, 'connect failed', this.socket.closeTimeoutMs);
      throw e;
    }
  }

  private request(session: CcSession, events: CcEventFilter[]): Promise<CcSocketAnswer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new HandshakeError('no answer to subscribe')),
        this.socket.handshakeTimeoutMs,
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
    this.socket.keepAlive.heardFromServer();
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
    if (this.cursor && typeof frame.sequence === 'number')
      this.cursor.after[frame.tenant_id] = frame.sequence;
    if (this.accepted && !this.accepted.has(frame.event)) return;
    this.listeners.emit('event', frame);
  }
}

class Refused {
  constructor(readonly token: string) {}
}
