import { HttpTransport, type TransportOptions } from '../http/transport.js';
import { SharedStream } from '../socket/shared-stream.js';
import { userAgent } from '../version.js';
import { CcEventStream, type CcSocketOptions } from './cc-event-stream.js';
import { ccError, ccRequest } from './cc-http.js';
import { type CcCredentials, CcTokens } from './cc-tokens.js';
import type {
  AcdsAnswer,
  AgentStateAnswer,
  CallControlRequest,
  CallSearchQuery,
  CallSearchResult,
  CcCallAnswer,
  CcCallList,
  CcEventFilter,
  DialAnswer,
  ExtensionItem,
  ExtensionSettings,
  ListEnvelope,
  PresenceOption,
  Product,
  Role,
  SuccessAnswer,
  TenantDetails,
  TenantItem,
  TenantLimits,
  TextCountAnswer,
  UuidAnswer,
} from './cc-types.js';
import { CcWatch, type CcWatchOptions } from './cc-watch.js';

export interface CcClientOptions extends CcCredentials {
  /** The server, e.g. `http://127.0.0.1:8080` (the API is at `/6/v2/api/` from there). */
  url: string;
  /** The application's own product token, put before the client's in the User-Agent. */
  application?: string;
  http?: Omit<TransportOptions, 'baseUrl' | 'userAgent'>;
  socket?: CcSocketOptions;
  transport?: HttpTransport;
  /** The clock token expiry is measured on (default `Date.now`). */
  clock?: () => number;
}

/**
 * The contact-center API: a Bearer token from the password grant (renewed with the refresh
 * grant), typed calls of every endpoint, and the event socket. Errors are CcApiError by HTTP
 * status, including the 400 and 500 bodies that say `success: true`.
 */
export class CcClient {
  readonly transport: HttpTransport;
  readonly tokens: CcTokens;
  private readonly stream = new SharedStream<CcEventStream>((s, forget) => s.on('error', forget));

  constructor(private readonly options: CcClientOptions) {
    this.transport =
      options.transport ??
      new HttpTransport({ baseUrl: options.url, userAgent: userAgent(options.application), ...options.http });
    this.tokens = new CcTokens(this.transport, options, 60_000, options.clock);
  }

  /** Obtains the token now (otherwise the first request does). */
  async login(): Promise<void> {
    await this.tokens.accessToken();
  }

  /** Any endpoint, relative to the REST base; answers the parsed 2xx body. */
  async request<T>(method: string, path: string, json?: unknown): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.tokens.accessToken();
      const answer = await ccRequest(
        this.transport,
        method,
        path,
        { authorization: `Bearer ${token}` },
        json,
      );
      if (answer.status === 401 && attempt === 0) {
        this.tokens.rejected(token);
        continue;
      }
      if (answer.status >= 200 && answer.status < 300) return answer.body as T;
      throw ccError(answer);
    }
  }

  // ---- tenants and provisioning ---------------------------------------------------------------

  products() {
    return this.request<ListEnvelope<Product>>('GET', 'products/');
  }
  roles() {
    return this.request<ListEnvelope<Role>>('GET', 'roles/');
  }
  tenants() {
    return this.request<ListEnvelope<TenantItem>>('GET', 'tenants');
  }
  tenant(tenantUuid: string) {
    return this.request<TenantDetails>('GET', `tenants/${tenantUuid}`);
  }
  tenantRoles(tenantUuid: string) {
    return this.request<ListEnvelope<Role>>('GET', `tenants/${tenantUuid}/roles`);
  }
  /** ACDs of the caller's tenant, or of `tenantUuid` (telco users). */
  acds(tenantUuid?: string) {
    return this.request<AcdsAnswer>('GET', tenantUuid ? `tenants/${tenantUuid}/acds` : 'acds');
  }
  presenceOptions(tenantUuid: string) {
    return this.request<ListEnvelope<PresenceOption>>('GET', `tenants/${tenantUuid}/presence_options`);
  }
  /** Extensions of the caller's tenant, or of `tenantUuid`. */
  extensions(tenantUuid?: string) {
    return this.request<ListEnvelope<ExtensionItem>>(
      'GET',
      tenantUuid ? `tenants/${tenantUuid}/extensions` : 'extensions',
    );
  }
  textCount(tenantUuid: string) {
    return this.request<TextCountAnswer>('GET', `tenants/${tenantUuid}/text_count`);
  }
  resetTextCount(tenantUuid: string) {
    return this.request<SuccessAnswer>('POST', `tenants/${tenantUuid}/text_count`, {
      request: 'reset_counter',
    });
  }
  addProduct(tenantUuid: string, productUuid: string) {
    return this.request<UuidAnswer>('POST', `tenants/${tenantUuid}`, {
      request: 'add_product',
      product: productUuid,
    });
  }
  deleteProduct(tenantUuid: string, productUuid: string) {
    return this.request<UuidAnswer>('POST', `tenants/${tenantUuid}`, {
      request: 'delete_product',
      product: productUuid,
    });
  }
  updateTenant(tenantUuid: string, limits: TenantLimits) {
    return this.request<UuidAnswer>('PUT', `tenants/${tenantUuid}`, limits);
  }
  updateExtension(tenantUuid: string, extensionUuid: string, settings: ExtensionSettings) {
    return this.request<SuccessAnswer>('PUT', `tenants/${tenantUuid}/extensions/${extensionUuid}`, settings);
  }

  // ---- agents ---------------------------------------------------------------------------------

  agentState(tenantUuid: string, extensionUuid: string) {
    return this.request<AgentStateAnswer>(
      'GET',
      `tenants/${tenantUuid}/extensions/${extensionUuid}/agent_state`,
    );
  }
  /** The caller's own agent state: `Ready` or a presence option's name. */
  setOwnAgentState(name: string) {
    return this.request<SuccessAnswer>('POST', 'agent_state', { request: 'updateAgentState', name });
  }
  /**
   * Another agent's state: a tenant admin names the extension (`extensions/<uuid>`); a telco
   * user also names the tenant (`tenants/<uuid>/extensions/<uuid>`).
   */
  setAgentState(extensionUuid: string, name: string, tenantUuid?: string) {
    const path = tenantUuid
      ? `tenants/${tenantUuid}/extensions/${extensionUuid}`
      : `extensions/${extensionUuid}`;
    return this.request<SuccessAnswer>('POST', path, { request: 'updateAgentState', name });
  }

  // ---- calls ----------------------------------------------------------------------------------

  /** Live calls (`type: "in_ecr"`) first, then finished ones. */
  calls() {
    return this.request<CcCallList>('GET', 'calls');
  }
  call(callId: string) {
    return this.request<CcCallAnswer>('GET', `calls/${encodeURIComponent(callId)}`);
  }
  searchCall(query: CallSearchQuery) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, v);
    return this.request<CallSearchResult>('GET', `calls/filter?${q}`);
  }
  controlCall(callId: string, request: CallControlRequest) {
    return this.request<SuccessAnswer>('POST', `calls/${encodeURIComponent(callId)}`, request);
  }
  /** Click to call: the agent's phone first, then `target`, through an outbound queue. */
  dial(tenantUuid: string, extensionUuid: string, target: string, outboundQueueUuid: string) {
    return this.request<DialAnswer>('POST', `tenants/${tenantUuid}/extensions/${extensionUuid}`, {
      request: 'dial',
      target,
      outbound_queue_uuid: outboundQueueUuid,
    });
  }

  // ---- events ---------------------------------------------------------------------------------

  /**
   * The event socket, opened on first use and shared (the server allows one per user and
   * address). `events` narrows it when it opens; `subscribe()` narrows later.
   */
  events(events?: CcEventFilter[]): Promise<CcEventStream> {
    return this.stream.get(() =>
      CcEventStream.open(this.transport, this.tokens, { ...this.options.socket, events }),
    );
  }

  /** Agents and queues of a tenant: the state now, then events (and a fresh state after a reconnect). */
  async watch(options: CcWatchOptions = {}): Promise<CcWatch> {
    return CcWatch.start(this, await this.events(), options);
  }

  close(): Promise<void> {
    return this.stream.close();
  }
}
