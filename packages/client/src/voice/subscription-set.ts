import { embedded, type Hal, linkHref, props } from '../hal/hal.js';
import { Listeners } from '../util/listeners.js';
import type { VoiceHttp } from './voice-http.js';
import type { VoiceNavigator } from './voice-navigator.js';
import type {
  EventAccount,
  ParkLocationStatus,
  PresenceStatus,
  SubscriptionSetInfo,
  VoiceEvent,
} from './voice-types.js';

/** What a subscription set watches. Each list replaces that kind's list on the server. */
export interface SubscriptionSpec {
  /** Call event accounts: `<ext>@<tenantId>` or a group token (`ALL_USERS@1001`, `ALL`, ...). */
  calls?: string[];
  /** Presence event accounts, same forms as `calls`. */
  presence?: string[];
  /** Park locations: `'all'` of the tenant, or accounts such as `PL2@1001`. */
  parkLocations?: 'all' | string[];
  /** Emergency call alerts (tenant admins and scoped telco only). */
  emergencyCallAlerts?: { allSites: boolean };
}

const LIST_REL = {
  calls: 'v1:callEventSubscriptions',
  presence: 'v1:presenceEventSubscriptions',
  parkLocations: 'v1:parkLocationEventSubscriptions',
} as const;

interface SetEvents {
  event(event: VoiceEvent): void;
}

/**
 * A subscription set as the application sees it: it outlives the socket. The server cancels a
 * set when its socket closes, so after every reconnect the stream creates it again on the new
 * socket (new `id`) and re-applies `spec`.
 */
export class SubscriptionSet {
  private resource: Hal<SubscriptionSetInfo> | undefined;
  private readonly listeners = new Listeners<SetEvents>();
  closed = false;

  constructor(
    private readonly http: VoiceHttp,
    private readonly nav: VoiceNavigator,
    private current: SubscriptionSpec,
    private readonly detach: (set: SubscriptionSet) => void,
  ) {}

  /** The server's id for this set on the current socket (undefined while reconnecting). */
  get id(): string | undefined {
    return this.resource?.subscriptionSetId;
  }

  get spec(): SubscriptionSpec {
    return this.current;
  }

  on(name: 'event', listener: (event: VoiceEvent) => void): () => void {
    return this.listeners.on(name, listener);
  }

  /** Changes what the set watches (only the kinds `spec` names). */
  async update(spec: SubscriptionSpec): Promise<void> {
    this.current = { ...this.current, ...spec };
    if (this.resource) await this.apply(this.resource, spec);
  }

  /** The accounts the server holds in one of the set's lists. */
  async eventAccounts(kind: 'calls' | 'presence' | 'parkLocations'): Promise<string[]> {
    const list = await this.http.get<object>(linkHref(this.live(), LIST_REL[kind]));
    return embedded<EventAccount>(list, 'eventAccount').map((a) => a.accountId);
  }

  /** Presence of every account the set watches (group tokens expanded), read now. */
  async presenceStatus(): Promise<PresenceStatus[]> {
    const list = await this.http.get<object>(linkHref(this.live(), 'v1:presenceStatusBySubscriptionSet'));
    return embedded<PresenceStatus>(list, 'presenceStatus').map(props);
  }

  /** Status of every park location the set watches, read now. */
  async parkLocationStatus(): Promise<ParkLocationStatus[]> {
    const list = await this.http.get<object>(linkHref(this.live(), 'v1:parkLocationStatusBySubscriptionSet'));
    return embedded<ParkLocationStatus>(list, 'parkLocationStatus').map(props);
  }

  /** Stops watching: empties the set's lists on the server and forgets the set. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.detach(this);
    const resource = this.resource;
    this.resource = undefined;
    if (!resource) return;
    const empty: SubscriptionSpec = {};
    if (this.current.calls) empty.calls = [];
    if (this.current.presence) empty.presence = [];
    if (this.current.parkLocations) empty.parkLocations = [];
    await this.apply(resource, empty).catch(() => {});
  }

  /** Creates the set on socket `webSocketId` and applies the spec (called by the stream). */
  async attach(webSocketId: string): Promise<void> {
    this.resource = undefined;
    const href = await this.nav.v1Href('v1:eventSubscriptionSets', { webSocketId });
    const answer = await this.http.send('POST', href);
    this.resource = answer.body as Hal<SubscriptionSetInfo>;
    await this.apply(this.resource, this.current);
  }

  /** Frames of this set (called by the stream). */
  deliver(event: VoiceEvent): void {
    this.listeners.emit('event', event);
  }

  private live(): Hal<SubscriptionSetInfo> {
    if (!this.resource) throw new Error('the subscription set is not attached to an open socket');
    return this.resource;
  }

  private async apply(set: Hal<SubscriptionSetInfo>, spec: SubscriptionSpec): Promise<void> {
    const put = (rel: string, body: unknown) => this.http.send('PUT', linkHref(set, rel), body);
    if (spec.calls) await put(LIST_REL.calls, { eventAccounts: spec.calls });
    if (spec.presence) await put(LIST_REL.presence, { eventAccounts: spec.presence });
    if (spec.parkLocations === 'all') await put(LIST_REL.parkLocations, { scope: 'all' });
    else if (spec.parkLocations) {
      const body = spec.parkLocations.length
        ? { scope: 'set', eventAccounts: spec.parkLocations }
        : { scope: 'none' };
      await put(LIST_REL.parkLocations, body);
    }
    if (spec.emergencyCallAlerts) {
      await put('v1:emergencyCallAlertEventSubscriptions', { allSites: spec.emergencyCallAlerts.allSites });
    }
  }
}
