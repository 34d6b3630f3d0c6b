import { findLink } from '../hal/hal.js';
import { VoiceApiError } from '../errors.js';
import type { VoiceCalls } from './voice-calls.js';
import type { VoiceNavigator } from './voice-navigator.js';
import type { VoiceStatus } from './voice-status.js';
import type { ActiveCall, ExtensionSummary, PresenceStatus } from './voice-types.js';

/** A call in progress of a watched account: that account's leg, as the call list gives it. */
export interface WatchedCall extends ActiveCall {
  /** The watched account whose leg this is; its call events carry this leg's `callId`. */
  accountId: string;
}

/** Whether a watched user or location is in one or more calls (presence `callActivity`). */
export interface CallActivity {
  accountId: string;
  callActivity: PresenceStatus['callActivity'];
}

/**
 * Whose calls `activeCalls` can hold, which depends on who the requester is:
 * - `'all'`: every watched account's. A scoped telco user's call list holds every live leg of
 *   the tenant.
 * - `'own'`: only the requester's own. The call list of a tenant admin, user or location holds
 *   the requester's own legs. The API offers no list of another extension's calls, so the calls
 *   that other watched accounts were already in when the watch started are missing. Their
 *   `callActivity` says who is busy; their events start with the next change of those calls.
 * - `'none'`: the set watches no calls.
 */
export type CallsListed = 'all' | 'own' | 'none';

/** The part of a watch's initial state that concerns the accounts it watches for calls. */
export interface WatchedCallsState {
  activeCalls: WatchedCall[];
  callsListed: CallsListed;
  callActivity: CallActivity[];
}

/** The extension types each group token of a call or presence list stands for. */
const TOKEN_TYPES: Record<string, readonly string[]> = {
  ALL: ['userExt', 'locationExt', 'acdExt', 'groupExt', 'autoAttendantExt'],
  ALL_USERS: ['userExt', 'locationExt'],
  ALL_CALL_GROUP_EXTENSIONS: ['groupExt'],
  ALL_AA_EXTENSIONS: ['autoAttendantExt'],
  ALL_ACD_EXTENSIONS: ['acdExt'],
};

/**
 * Reads what the API can tell about the calls of the accounts a subscription set watches for
 * calls, filtered to those accounts: their legs from the call list (`v1:activeCalls`), and for
 * each watched user and location whether it is busy (presence status).
 */
export class WatchedCallsReader {
  constructor(
    private readonly nav: VoiceNavigator,
    private readonly calls: VoiceCalls,
    private readonly status: VoiceStatus,
    private readonly extensions: () => Promise<ExtensionSummary[]>,
  ) {}

  /** `accounts`: the set's call accounts as the server holds them (group tokens unexpanded). */
  async read(accounts: string[]): Promise<WatchedCallsState> {
    const watched = await this.expand(accounts);
    const own = await this.status.own();
    const presence = findLink(await this.nav.v1(), 'v1:presenceStatusTenantAccounts')
      ? await this.status.tenantPresence()
      : own
        ? [own]
        : [];
    const callActivity = presence
      .filter((p) => watched.has(p.accountId))
      .map((p) => ({ accountId: p.accountId, callActivity: p.callActivity }));
    if (own) {
      // The list holds the requester's own legs only.
      const listed = watched.has(own.accountId) ? await this.calls.list() : [];
      return {
        activeCalls: listed.map((c) => ({ ...c, accountId: own.accountId })),
        callsListed: 'own',
        callActivity,
      };
    }
    return { activeCalls: await this.tenantLegsOf(watched), callsListed: 'all', callActivity };
  }

  /**
   * The watched accounts' legs among every live leg of the tenant. A list element does not say
   * whose leg it is; the leg's Call does: Switchboard lists the leg's own party first in
   * `callParties`.
   */
  private async tenantLegsOf(watched: Set<string>): Promise<WatchedCall[]> {
    const legs = await Promise.all(
      (await this.calls.list()).map(async (c) => {
        try {
          const call = await this.calls.get(c.callId);
          const owner = call.callParties[0]?.PartyId;
          return call.callState !== 'ended' && owner !== undefined && watched.has(owner)
            ? { ...c, accountId: owner }
            : undefined;
        } catch (e) {
          // The leg ended between the list and the read.
          if (e instanceof VoiceApiError && e.status === 404) return undefined;
          throw e;
        }
      }),
    );
    return legs.filter((c) => c !== undefined);
  }

  /** The concrete accounts behind `accounts`, group tokens expanded from `v1:extensions`. */
  private async expand(accounts: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    const types = new Set<string>();
    for (const account of accounts) {
      const token = account.startsWith('ALL_USERS@') ? 'ALL_USERS' : account;
      const expandsTo = TOKEN_TYPES[token];
      if (expandsTo) for (const t of expandsTo) types.add(t);
      else out.add(account);
    }
    if (types.size === 0) return out;
    // A set watches accounts of one tenant only: the requester's.
    const tenantId = (await this.nav.root()).tenantId;
    for (const e of await this.extensions()) {
      if (types.has(e.extensionType)) out.add(`${e.extension}@${tenantId}`);
    }
    return out;
  }
}
