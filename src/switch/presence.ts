/**
 * Presence of user and location extensions, in the spec's five dimensions. Every change raises
 * its event once; setting a dimension to the value it already has raises nothing.
 *
 * Live state, initialised from the directory: device registration (Device.registered), do not
 * disturb (Extension.dnd), group membership (the members of call-group extensions). ACD sign-in
 * starts signed in for agents and is then driven by the contact center; it survives `resync`.
 */
import { accountId } from '../core/accounts.js';
import type { Directory } from '../directory/directory.js';
import type { Device, Extension } from '../directory/model.js';
import type { PresenceEvent, PresenceEventName, PresenceStatus } from './types.js';

interface AccountState {
  tenantId: number;
  ext: string;
  account: string;
  calls: number;
  registered: number;
  dnd: boolean;
  groups: Set<string>;
}

export const hasPresence = (e: Extension | undefined): e is Extension =>
  !!e && (e.type === 'userExt' || e.type === 'locationExt');

export class Presence {
  private accounts = new Map<string, AccountState>();
  private registered = new Map<string, boolean>();
  /** Counts the changes of `registered` (a read showing it may be kept while it stays the same). */
  private registrations = 0;
  /** Explicit ACD sign-in, by account. */
  private readonly acd = new Map<string, boolean>();

  constructor(
    private readonly dir: Directory,
    private readonly emit: (e: PresenceEvent) => void,
    private readonly now: () => number,
  ) {}

  /**
   * Recomputes every account from the directory without events. `liveCalls` gives the number of
   * live legs of an account (none after a reset).
   */
  rebuild(liveCalls: (account: string) => number): void {
    this.accounts = new Map();
    this.registered = new Map();
    this.registrations++;
    for (const d of this.dir.list('device')) this.registered.set(d.id, d.registered);
    for (const t of this.dir.tenants()) {
      for (const e of this.dir.extensions(t.tenantId)) {
        if (hasPresence(e)) this.add(e, liveCalls(accountId(e.ext, e.tenantId)));
      }
      for (const g of this.dir.extensions(t.tenantId)) {
        if (g.type !== 'groupExt') continue;
        for (const m of g.group?.members ?? [])
          this.state(t.tenantId, m)?.groups.add(accountId(g.ext, t.tenantId));
      }
    }
  }

  /** Forgets explicit ACD sign-ins too (reset). */
  clear(): void {
    this.accounts = new Map();
    this.registered = new Map();
    this.registrations++;
    this.acd.clear();
  }

  status(tenantId: number, ext: string): PresenceStatus | undefined {
    const s = this.state(tenantId, ext);
    if (!s) return undefined;
    return {
      account: s.account,
      callActivity: s.calls > 0 ? 'busy' : 'idle',
      reachability: s.registered > 0 ? 'available' : 'unavailable',
      acd: this.signedIn(s) ? 'signedInAcd' : 'signedOutAcd',
      dnd: s.dnd ? 'dndOn' : 'dndOff',
      groups: [...s.groups].sort(),
    };
  }

  isRegistered(deviceId: string): boolean {
    return this.registered.get(deviceId) === true;
  }

  get registrationGeneration(): number {
    return this.registrations;
  }

  registeredDevices(tenantId: number, ext: string): Device[] {
    return this.dir.devicesOf(tenantId, ext).filter((d) => this.isRegistered(d.id));
  }

  isDnd(tenantId: number, ext: string): boolean {
    return this.state(tenantId, ext)?.dnd ?? false;
  }

  callStarted(account: string): void {
    const s = this.accounts.get(account);
    if (s && ++s.calls === 1) this.raise(s, 'busy');
  }

  callEnded(account: string): void {
    const s = this.accounts.get(account);
    if (s && s.calls > 0 && --s.calls === 0) this.raise(s, 'idle');
  }

  /** A leg recreated on this node (failover): counted, without an event (its `busy` was published). */
  restoreCall(account: string): void {
    const s = this.accounts.get(account);
    if (s) s.calls++;
  }

  /** An agent's ACD sign-in as restored from durable state (failover): no event. */
  restoreAcd(tenantId: number, ext: string, on: boolean): void {
    this.acd.set(accountId(ext, tenantId), on);
  }

  /** The tenant is no longer run here: its live counts and explicit ACD sign-ins go, without events. */
  forgetTenant(tenantId: number): void {
    for (const s of this.accounts.values()) if (s.tenantId === tenantId) s.calls = 0;
    for (const account of this.acd.keys()) if (account.endsWith(`@${tenantId}`)) this.acd.delete(account);
  }

  /** Returns false when the device already was in that state. */
  setRegistered(device: Device, on: boolean): boolean {
    if (this.isRegistered(device.id) === on) return false;
    const s = this.noteRegistered(device, on);
    if (on && s?.registered === 1) this.raise(s, 'available');
    if (!on && s?.registered === 0) this.raise(s, 'unavailable');
    return true;
  }

  /**
   * The registration as it stands, without events: set here by `setRegistered`, or noted from
   * the node that runs the phone's tenant (a cluster). Answers the owner's presence state.
   */
  noteRegistered(device: Device, on: boolean): AccountState | undefined {
    const s = this.state(device.tenantId, device.ownerExt);
    if (this.isRegistered(device.id) === on) return s;
    this.registered.set(device.id, on);
    this.registrations++;
    if (s) s.registered += on ? 1 : -1;
    return s;
  }

  setDnd(tenantId: number, ext: string, on: boolean): void {
    const s = this.state(tenantId, ext);
    if (!s || s.dnd === on) return;
    s.dnd = on;
    this.raise(s, on ? 'dndOn' : 'dndOff');
  }

  setAcd(tenantId: number, ext: string, on: boolean): void {
    const account = accountId(ext, tenantId);
    const s = this.accounts.get(account);
    const before = s ? this.signedIn(s) : this.acd.get(account);
    this.acd.set(account, on);
    if (s && before !== on) this.raise(s, on ? 'signedInAcd' : 'signedOutAcd');
  }

  /** A provisioning change of an extension: new accounts, DND, group membership. */
  extensionChanged(before: Extension | undefined, after: Extension | undefined): void {
    if (hasPresence(after) && !this.state(after.tenantId, after.ext)) this.add(after, 0);
    if (hasPresence(before) && !hasPresence(after))
      this.accounts.delete(accountId(before.ext, before.tenantId));
    if (hasPresence(after) && before && before.dnd !== after.dnd)
      this.setDnd(after.tenantId, after.ext, after.dnd);
    const groupOf = (e: Extension | undefined) => (e?.type === 'groupExt' ? (e.group?.members ?? []) : []);
    const was = new Set(groupOf(before));
    const now = new Set(groupOf(after));
    const g = after ?? before;
    if (!g) return;
    const groupAccount = accountId(g.ext, g.tenantId);
    for (const m of now) if (!was.has(m)) this.membership(g.tenantId, m, groupAccount, true);
    for (const m of was) if (!now.has(m)) this.membership(g.tenantId, m, groupAccount, false);
  }

  /** A provisioning change of a device: a new phone starts as provisioned, a removed one is gone. */
  deviceChanged(before: Device | undefined, after: Device | undefined): void {
    this.registrations++;
    if (before && (!after || after.ownerExt !== before.ownerExt)) {
      this.setRegistered(before, false);
      this.registered.delete(before.id);
    }
    if (after && !this.registered.has(after.id)) {
      this.registered.set(after.id, false);
      this.setRegistered(after, after.registered);
    }
  }

  private membership(tenantId: number, ext: string, group: string, joined: boolean): void {
    const s = this.state(tenantId, ext);
    if (!s || s.groups.has(group) === joined) return;
    if (joined) s.groups.add(group);
    else s.groups.delete(group);
    this.raise(s, joined ? 'joinedGroup' : 'leftGroup', group);
  }

  private add(e: Extension, calls: number): void {
    const account = accountId(e.ext, e.tenantId);
    let registered = 0;
    for (const d of this.dir.devicesOf(e.tenantId, e.ext)) if (this.isRegistered(d.id)) registered++;
    this.accounts.set(account, {
      tenantId: e.tenantId,
      ext: e.ext,
      account,
      calls,
      registered,
      dnd: e.dnd,
      groups: new Set(),
    });
  }

  private signedIn(s: AccountState): boolean {
    const explicit = this.acd.get(s.account);
    if (explicit !== undefined) return explicit;
    return this.dir.extension(s.tenantId, s.ext)?.agent?.isAgent === true;
  }

  private state(tenantId: number, ext: string): AccountState | undefined {
    return this.accounts.get(accountId(ext, tenantId));
  }

  private raise(s: AccountState, name: PresenceEventName, group?: string): void {
    const e: PresenceEvent = {
      type: 'presence',
      name,
      tenantId: s.tenantId,
      observed: s.account,
      at: this.now(),
    };
    if (name === 'joinedGroup') e.groupJoined = group;
    if (name === 'leftGroup') e.groupLeft = group;
    this.emit(e);
  }
}
