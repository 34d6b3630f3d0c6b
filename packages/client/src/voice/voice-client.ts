import { embedded, type Hal, props } from '../hal/hal.js';
import { HttpTransport, type TransportOptions } from '../http/transport.js';
import type { TemplateVars } from '../http/uri-template.js';
import { SharedStream } from '../socket/shared-stream.js';
import { userAgent } from '../version.js';
import type { SubscriptionSpec } from './subscription-set.js';
import { VoiceCalls } from './voice-calls.js';
import { VoiceEventStream, type VoiceSocketOptions } from './voice-event-stream.js';
import { type VoiceCredentials, VoiceHttp } from './voice-http.js';
import { VoiceNavigator } from './voice-navigator.js';
import { VoiceStatus } from './voice-status.js';
import type { ApiRoot, ExtensionSummary } from './voice-types.js';
import { VoiceWatch } from './voice-watch.js';
import { WatchedCallsReader } from './watched-calls.js';

export interface VoiceClientOptions extends VoiceCredentials {
  /** The server, e.g. `http://127.0.0.1:8080` (the API is found at `/api` from there). */
  url: string;
  /** The application's own product token, put before the client's in the User-Agent. */
  application?: string;
  /** HTTP settings (in-flight limit, time-out, busy retries). */
  http?: Omit<TransportOptions, 'baseUrl' | 'userAgent'>;
  /** Event socket settings (keep-alive, reconnect backoff). */
  socket?: VoiceSocketOptions;
  /** Share one transport (and its in-flight limit) with another client. */
  transport?: HttpTransport;
}

export interface ExtensionQuery {
  expand?: string;
  filter?: string;
  extensionType?: 'userExt' | 'locationExt' | 'acdExt' | 'groupExt' | 'autoAttendantExt';
  agent?: boolean;
}

/**
 * The voice platform API: HAL REST from `/api` by links, and its event socket. One socket per
 * client (the server allows one per user and address): `events()` opens it once and every
 * `watch()` adds a subscription set to it.
 */
export class VoiceClient {
  readonly http: VoiceHttp;
  readonly nav: VoiceNavigator;
  readonly calls: VoiceCalls;
  readonly status: VoiceStatus;
  private readonly stream = new SharedStream<VoiceEventStream>((s, forget) =>
    s.on('error', (_e, set) => set === undefined && forget()),
  );

  constructor(private readonly options: VoiceClientOptions) {
    const transport =
      options.transport ??
      new HttpTransport({ baseUrl: options.url, userAgent: userAgent(options.application), ...options.http });
    this.http = new VoiceHttp(transport, options);
    this.nav = new VoiceNavigator(this.http);
    this.calls = new VoiceCalls(this.http, this.nav);
    this.status = new VoiceStatus(this.http, this.nav);
  }

  /** `/api`: the requester's tenant (when they have one) and the entry links. */
  async root(): Promise<ApiRoot> {
    return props(await this.nav.root());
  }

  /** A v1 root relation's resource, e.g. `follow('v1:tenant')`; templates take `vars`. */
  async follow<T = Record<string, unknown>>(rel: string, vars: TemplateVars = {}): Promise<Hal<T>> {
    return this.http.get<T>(await this.nav.v1Href(rel, vars));
  }

  /** Any address the API gave (a link's href). */
  get<T = Record<string, unknown>>(href: string): Promise<Hal<T>> {
    return this.http.get<T>(href);
  }

  /** The tenant's extensions (`v1:extensions`). */
  async extensions(query: ExtensionQuery = {}): Promise<ExtensionSummary[]> {
    const list = await this.follow<object>('v1:extensions', { ...query });
    return embedded<ExtensionSummary>(list, 'extensions').map(props);
  }

  /** The event socket, opened on first use and shared by every watch. */
  events(): Promise<VoiceEventStream> {
    return this.stream.get(() => VoiceEventStream.open(this.http, this.nav, this.options.socket));
  }

  /**
   * Watches accounts: resolves with the current state (`initial`, read from the status
   * resources and the call list after subscribing) and then yields events, and a fresh state
   * after a reconnect.
   */
  async watch(spec: SubscriptionSpec): Promise<VoiceWatch> {
    const calls = new WatchedCallsReader(this.nav, this.calls, this.status, () => this.extensions());
    return VoiceWatch.start(await this.events(), calls, spec);
  }

  /** Closes the event socket (REST needs no closing). */
  close(): Promise<void> {
    return this.stream.close();
  }
}
