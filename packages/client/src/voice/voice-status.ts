import { SwitchboardError } from '../errors.js';
import { embedded, findLink, props } from '../hal/hal.js';
import type { VoiceHttp } from './voice-http.js';
import type { VoiceNavigator } from './voice-navigator.js';
import type { ParkLocationStatus, PresenceStatus } from './voice-types.js';

/** The status resources: the current state a client reads before it relies on events. */
export class VoiceStatus {
  constructor(
    private readonly http: VoiceHttp,
    private readonly nav: VoiceNavigator,
  ) {}

  /**
   * Presence of one extension. Without `extension`, the requester's own (the v1 root's link);
   * another extension's address comes from the dictionary's template (tenant admins, scoped telco).
   */
  async presence(extension?: string): Promise<PresenceStatus> {
    const templated =
      extension === undefined
        ? undefined
        : await this.nav.dictionaryHref('v1:presenceStatusByExtension', { extension });
    const href = templated ?? (await this.nav.v1Href('v1:presenceStatusByExtension', { extension }));
    const status = props(await this.http.get<PresenceStatus>(href));
    if (extension !== undefined && !status.accountId.startsWith(`${extension}@`)) {
      throw new SwitchboardError(`this user may read only their own presence, not ${extension}'s`);
    }
    return status;
  }

  /**
   * The requester's own presence, or undefined for a requester without an extension of their own
   * (a scoped telco user). The server fills in the v1 root's template with the requester's own
   * extension; for a scoped telco user the link stays a template.
   */
  async own(): Promise<PresenceStatus | undefined> {
    const link = findLink(await this.nav.v1(), 'v1:presenceStatusByExtension');
    if (!link || link.templated) return undefined;
    return props(await this.http.get<PresenceStatus>(link.href));
  }

  /** Presence of every user and location of the tenant (tenant admins, scoped telco). */
  async tenantPresence(): Promise<PresenceStatus[]> {
    const list = await this.http.get<object>(await this.nav.v1Href('v1:presenceStatusTenantAccounts'));
    return embedded<PresenceStatus>(list, 'presenceStatus').map(props);
  }

  /** Every park location of the tenant. */
  async parkLocations(): Promise<ParkLocationStatus[]> {
    const list = await this.http.get<object>(await this.nav.v1Href('v1:presenceStatusTenantParkLocations'));
    return embedded<ParkLocationStatus>(list, 'parkLocationStatus').map(props);
  }

  /** One park location, e.g. `PL2@1001`. */
  async parkLocation(accountId: string): Promise<ParkLocationStatus> {
    const href =
      (await this.nav.dictionaryHref('v1:parkLocationStatus', { accountId })) ??
      (await this.nav.v1Href('v1:parkLocationStatus', { accountId }));
    return props(await this.http.get<ParkLocationStatus>(href));
  }
}
