import { SwitchboardError, VoiceApiError } from '../errors.js';
import { ChannelSession, EventSocket, type EventSocketOptions } from '../socket/event-socket.js';
import {
  type CloseInfo,
  FrameChannel,
  HandshakeError,
  UpgradeRefusedError,
} from '../socket/frame-channel.js';
import { Listeners } from '../util/listeners.js';
import { SubscriptionSet, type SubscriptionSpec } from './subscription-set.js';
import type { VoiceHttp } from './voice-http.js';
import type { VoiceNavigator } from './voice-navigator.js';
import type { Problem, VoiceEvent } from './voice-types.js';

export interface VoiceSocketOptions extends EventSocketOptions {
  /** Time allowed for the upgrade and the `webSocketId` message (default 10 s). */
  handshakeTimeoutMs?: number;
  /**
   * Resume after a lost socket (default true): the server gives the sets back and every event
   * missed within its grace period, so nothing is lost and nothing needs reading again. When the
   * server cannot resume (or this is false), the sets are created again and `connected` says
   * `resumed: false`: events were lost meanwhile (docs/events.md).
   */
  resume?: boolean;
}

export interface VoiceStreamEvents {
  /** A frame of one of the stream's subscription sets. */
  event(event: VoiceEvent, set: SubscriptionSet): void;
  /**
   * A socket is open and every subscription set is in place on it. `resumed` (with resume on):
   * the previous socket's sets and missed events came back, so no state needs reading again.
   */
  connected(info: { webSocketId: string; reconnect: boolean; resumed?: boolean }): void;
  disconnected(info: CloseInfo): void;
  reconnecting(info: { attempt: number; delayMs: number; error: unknown }): void;
  /** The server echoed a keep-alive. */
  keepAlive(): void;
  /** A set could not be re-created, or the stream gave up reconnecting (then it is closed). */
  error(error: unknown, set?: SubscriptionSet): void;
}

/** The short text sent as keep-alive; the server echoes it (spec: WebSocket states). */
export const VOICE_KEEP_ALIVE_TEXT = 'keep-alive';

class VoiceSession extends ChannelSession {
  constructor(
    channel: FrameChannel,
    readonly webSocketId: string,
    readonly resumed: boolean,
  ) {
    super(channel);
  }
}

/** The first frame's `resume` (only on a socket opened with `resume`). */
interface ResumeStatus {
  status: 'started' | 'resumed' | 'failed' | 'unavailable';
  sequence?: number;
}

/**
 * The voice event socket (`api:createWebsocket`) with the spec's client obligations built in:
 * the address comes from the root's link; Basic credentials and the User-Agent go on the upgrade;
 * a short text every `keepAliveMs` keeps the socket inside the idle time-out; a lost socket is
 * reopened with exponential backoff and jitter, and every subscription set is created again on
 * the new socket with the accounts it had.
 */
export class VoiceEventStream {
  private readonly listeners = new Listeners<VoiceStreamEvents>();
  private readonly sets = new Set<SubscriptionSet>();
  private readonly socket: EventSocket<VoiceSession>;
  private closedByUser = false;
  private everConnected = false;
  /** The resumable socket and the sequence of the last event delivered on it. */
  private cursor: { webSocketId: string; sequence: number } | undefined;

  private constructor(
    private readonly http: VoiceHttp,
    private readonly nav: VoiceNavigator,
    private readonly options: VoiceSocketOptions,
  ) {
    this.socket = new EventSocket(() => this.connect(), options, {
      sendKeepAlive: (s) => s.channel.send(VOICE_KEEP_ALIVE_TEXT),
      connected: (s, reconnect) => {
        this.everConnected = true;
        const info = { webSocketId: s.webSocketId, reconnect };
        this.listeners.emit('connected', (options.resume ?? true) ? { ...info, resumed: s.resumed } : info);
      },
      disconnected: (info) => this.listeners.emit('disconnected', info),
      reconnecting: (attempt, delayMs, error) =>
        this.listeners.emit('reconnecting', { attempt, delayMs, error }),
      gaveUp: (error) => this.listeners.emit('error', error),
    });
  }

  /** Opens the socket (first attempt: its failure rejects). */
  static async open(http: VoiceHttp, nav: VoiceNavigator, options: VoiceSocketOptions = {}) {
    const stream = new VoiceEventStream(http, nav, options);
    await stream.socket.start();
    return stream;
  }

  /** The current socket's id; undefined while reconnecting. */
  get webSocketId(): string | undefined {
    return this.socket.session?.webSocketId;
  }

  on<K extends keyof VoiceStreamEvents>(name: K, listener: VoiceStreamEvents[K]): () => void {
    return this.listeners.on(name, listener);
  }

  /** Creates a subscription set on the socket; it is re-created after every reconnect. */
  async subscribe(spec: SubscriptionSpec): Promise<SubscriptionSet> {
    const session = this.socket.session;
    if (!session) throw new SwitchboardError('the voice event socket is not connected');
    const set = new SubscriptionSet(this.http, this.nav, spec, (s) => this.sets.delete(s));
    this.sets.add(set);
    try {
      await set.attach(session.webSocketId);
    } catch (e) {
      await set.close();
      throw e;
    }
    return set;
  }

  /**
   * Stops reconnecting and closes the socket with a closing handshake. Resolves once it is
   * closed (dropped after `closeTimeoutMs`), so a new socket of this client can be opened.
   */
  close(): Promise<void> {
    this.closedByUser = true;
    return this.socket.close();
  }

  get closed(): boolean {
    return this.closedByUser;
  }

  private async connect(): Promise<VoiceSession> {
    // After a loss the server may have restarted (or been upgraded): find every address anew.
    if (this.everConnected) this.nav.refresh();
    const href = await this.nav.websocketHref();
    const url = new URL(href, this.http.transport.baseUrl + '/');
    url.protocol = url.protocol === 'https:' ? 'wss:' : url.protocol === 'http:' ? 'ws:' : url.protocol;
    const resume = this.options.resume ?? true;
    if (resume && this.cursor) {
      url.searchParams.set('resume', this.cursor.webSocketId);
      url.searchParams.set('after', String(this.cursor.sequence));
    } else if (resume) url.searchParams.set('resume', 'true');
    const timeout = this.socket.handshakeTimeoutMs;
    let channel: FrameChannel;
    try {
      channel = await FrameChannel.open(url.toString(), this.http.headers, timeout);
    } catch (e) {
      throw asProblem(e);
    }
    try {
      const first = JSON.parse(await channel.next(timeout, 'webSocketId message')) as {
        webSocketId?: unknown;
        resume?: ResumeStatus;
      };
      if (typeof first.webSocketId !== 'string') throw new HandshakeError('first frame has no webSocketId');
      const status = first.resume;
      const session = new VoiceSession(channel, first.webSocketId, status?.status === 'resumed');
      if (status && status.status !== 'unavailable') {
        this.cursor = { webSocketId: first.webSocketId, sequence: status.sequence ?? 0 };
      } else this.cursor = undefined;
      // Resumed: the sets are back with their ids, and the missed events follow.
      if (!session.resumed) await this.reattach(session.webSocketId);
      channel.listen((text) => this.onFrame(text));
      return session;
    } catch (e) {
      // The next attempt opens a new socket: this one must be gone from the server first.
      await channel.shutdown(1000, 'handshake failed', this.socket.closeTimeoutMs);
      throw e;
    }
  }

  /**
   * Creates every set again on a new socket. A set the server now refuses (an account gone or
   * no longer allowed: 400, 403, 404) is reported and dropped; anything else fails the attempt.
   */
  private async reattach(webSocketId: string): Promise<void> {
    for (const set of [...this.sets]) {
      try {
        await set.attach(webSocketId);
      } catch (e) {
        if (!(e instanceof VoiceApiError)) throw e;
        if (e.errorCode === 'WEBSOCKET_NOT_FOUND') throw new HandshakeError('the new socket closed at once');
        if (![400, 403, 404].includes(e.status) || e.errorCode === 'LOCKED_OUT') throw e;
        void set.close();
        this.listeners.emit('error', e, set);
      }
    }
  }

  private onFrame(text: string): void {
    this.socket.keepAlive.heardFromServer();
    if (text === VOICE_KEEP_ALIVE_TEXT) return this.listeners.emit('keepAlive');
    let frame: VoiceEvent;
    try {
      frame = JSON.parse(text) as VoiceEvent;
    } catch {
      return; // an echo of something else the application sent
    }
    if (typeof frame?.event !== 'string') return;
    if (this.cursor && typeof frame.sequence === 'number') this.cursor.sequence = frame.sequence;
    for (const set of this.sets) {
      if (set.id === frame.subscriptionSetId) {
        set.deliver(frame);
        this.listeners.emit('event', frame, set);
        return;
      }
    }
  }
}

/** An upgrade refused with a problem document becomes the API's typed error. */
function asProblem(e: unknown): unknown {
  if (!(e instanceof UpgradeRefusedError)) return e;
  const body = e.json() as Problem | undefined;
  if (typeof body?.errorCode !== 'string') return e;
  return new VoiceApiError('GET', e.url, body, e.retryAfterSeconds);
}
