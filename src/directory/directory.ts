import type {
  Device,
  Did,
  EntityKinds,
  Extension,
  GenericEntity,
  Kind,
  OutboundQueue,
  PresenceOption,
  StoredEntity,
  TelcoUser,
  Tenant,
} from './model.js';
import { extensionKey } from './model.js';
import { isDeepStrictEqual } from 'node:util';
import { naturalCompare } from '../core/natural-order.js';

/** One record of the store. */
export interface EntityKey {
  kind: string;
  id: string;
}

/** Where the directory writes through to. Implemented by `store/`. */
export interface EntityStore {
  loadAll(): Promise<StoredEntity[]>;
  /** The records of `keys` the store holds (absent ones are left out). */
  load(keys: readonly EntityKey[]): Promise<StoredEntity[]>;
  upsert(entity: StoredEntity): Promise<void>;
  /** Adds a record the store does not hold yet; false (nothing written) when it holds one of that kind and id. */
  insert(entity: StoredEntity): Promise<boolean>;
  remove(kind: string, id: string): Promise<void>;
  replaceAll(entities: StoredEntity[]): Promise<void>;
}

/** `remote`: another node of the cluster made the change (docs/cluster.md § Directory). */
export type DirectoryChange = (
  | { op: 'put'; kind: string; before?: GenericEntity; after: GenericEntity }
  | { op: 'remove'; kind: string; before: GenericEntity }
  | { op: 'reset' }
) & { remote?: true };

/**
 * Told of every write this directory made, after the store has it, and awaited before the write
 * resolves: a cluster node makes the other nodes read it (src/cluster/directory-sync.ts).
 */
export type Replicator = (written: readonly EntityKey[] | 'all') => Promise<void>;

type Listener = (change: DirectoryChange) => void;

/**
 * The provisioned world: an in-memory read model, written through the store.
 * Reads are synchronous; writes persist first, then update memory, then notify listeners.
 */
export class Directory {
  private byKind = new Map<string, Map<string, GenericEntity>>();
  /**
   * The same records per kind and tenant, in the same order as `byKind`: a tenant's list reads
   * only its own records, never every tenant's (issue 19: no read grows with unrelated tenants).
   */
  private byKindTenant = new Map<string, Map<string, GenericEntity>>();
  private didIndex = new Map<string, Did>();
  private tenantByDidIndex = new Map<string, Tenant>();
  private tenantByUrlIndex = new Map<string, Tenant>();
  private tenantByCcUuidIndex = new Map<string, Tenant>();
  private extensionByUuidIndex = new Map<string, Extension>();
  private devicesByOwner = new Map<string, Device[]>();
  private listeners: Listener[] = [];
  private replicate: Replicator | undefined;
  private changes = 0;

  private constructor(private readonly store: EntityStore) {}

  static async load(store: EntityStore): Promise<Directory> {
    const d = new Directory(store);
    d.fill(await store.loadAll());
    return d;
  }

  // ---- generic access --------------------------------------------------------------------

  get<K extends Kind>(kind: K, id: string): EntityKinds[K] | undefined;
  get(kind: string, id: string): GenericEntity | undefined;
  get(kind: string, id: string): unknown {
    return this.byKind.get(kind)?.get(id);
  }

  list<K extends Kind>(kind: K, tenantId?: number): EntityKinds[K][];
  list(kind: string, tenantId?: number): GenericEntity[];
  list(kind: string, tenantId?: number): unknown[] {
    const m =
      tenantId === undefined ? this.byKind.get(kind) : this.byKindTenant.get(tenantKey(kind, tenantId));
    return [...(m?.values() ?? [])];
  }

  async put<K extends Kind>(kind: K, entity: EntityKinds[K]): Promise<void>;
  async put(kind: string, entity: GenericEntity): Promise<void>;
  async put(kind: string, entity: GenericEntity): Promise<void> {
    const copy = structuredClone(entity);
    await this.store.upsert({ kind, id: copy.id, tenantId: copy.tenantId ?? null, data: copy });
    await this.written(kind, copy, this.byKind.get(kind)?.get(copy.id));
  }

  /**
   * Adds a new record: false, and nothing changed, when the store already holds one of that kind
   * and id, which another node of a cluster created after this node last looked (its own cache
   * hears of it through the directory sync). An allocator then tries its next id.
   */
  async create(kind: string, entity: GenericEntity): Promise<boolean> {
    const copy = structuredClone(entity);
    if (!(await this.store.insert({ kind, id: copy.id, tenantId: copy.tenantId ?? null, data: copy })))
      return false;
    await this.written(kind, copy);
    return true;
  }

  async remove(kind: string, id: string): Promise<boolean> {
    const before = this.byKind.get(kind)?.get(id);
    if (!before) return false;
    await this.retire(kind, id);
    await this.store.remove(kind, id);
    this.byKind.get(kind)!.delete(id);
    this.byKindTenant.get(tenantKey(kind, before.tenantId))?.delete(id);
    this.reindex();
    this.emit({ op: 'remove', kind, before });
    await this.replicate?.([{ kind, id }]);
    return true;
  }

  /** Replace the whole world (seed --reset, simulator reset). */
  async replaceAll(entities: StoredEntity[]): Promise<void> {
    await this.store.replaceAll(entities);
    this.fill(entities);
    this.emit({ op: 'reset' });
    await this.replicate?.('all');
  }

  // ---- the other nodes' writes (docs/cluster.md § Directory) ---------------------------------

  /** Sets who is told of this directory's writes (one replicator). */
  replicateWith(replicator: Replicator | undefined): void {
    this.replicate = replicator;
  }

  /**
   * Another node wrote these records: reads them again from the store and applies what it holds
   * now, writing nothing. Listeners hear the same changes a local write makes, marked `remote`;
   * a record the store no longer has is removed, its id retired as the writer's removal did.
   */
  async refresh(keys: readonly EntityKey[]): Promise<void> {
    const found = new Map((await this.store.load(keys)).map((r) => [`${r.kind}/${r.id}`, r.data]));
    const changes: DirectoryChange[] = [];
    for (const { kind, id } of keys) {
      const after = found.get(`${kind}/${id}`);
      const before = this.byKind.get(kind)?.get(id);
      if (after) {
        if (before && isDeepStrictEqual(before, after)) continue;
        this.setInMemory(kind, after);
        changes.push({ op: 'put', kind, before, after, remote: true });
      } else if (before) {
        if (kind !== RETIRED && !this.isRetired(kind, id)) {
          this.setInMemory(RETIRED, { id: retiredKey(kind, id), kind, key: id });
        }
        this.byKind.get(kind)!.delete(id);
        this.byKindTenant.get(tenantKey(kind, before.tenantId))?.delete(id);
        changes.push({ op: 'remove', kind, before, remote: true });
      }
    }
    if (changes.length === 0) return;
    this.reindex();
    for (const c of changes) this.emit(c);
  }

  /** Another node replaced the whole world: loads it again (listeners hear a remote reset). */
  async reload(): Promise<void> {
    this.fill(await this.store.loadAll());
    this.emit({ op: 'reset', remote: true });
  }

  // ---- ids are never handed out twice ------------------------------------------------------

  /**
   * Whether `id` named a record of `kind` that was removed. A removed record leaves a durable
   * tombstone (an entity of kind `retiredId`, written before the record goes), so an id the server
   * assigns is never given to a new record, across restarts too: a client holding an old address
   * must not reach a new object. A reset (`replaceAll`) starts a new world without them.
   */
  isRetired(kind: string, id: string): boolean {
    return this.byKind.get(RETIRED)?.has(retiredKey(kind, id)) ?? false;
  }

  /** Whether `id` of `kind` is in use or was ever used. */
  idTaken(kind: string, id: string): boolean {
    return this.get(kind, id) !== undefined || this.isRetired(kind, id);
  }

  /** Every id of `kind` in use or once used (for allocators that count up). */
  idsEverUsed(kind: string): string[] {
    const ids = [...(this.byKind.get(kind)?.keys() ?? [])];
    for (const t of this.byKind.get(RETIRED)?.values() ?? []) if (t.kind === kind) ids.push(t.key as string);
    return ids;
  }

  private async retire(kind: string, id: string): Promise<void> {
    if (kind === RETIRED || this.isRetired(kind, id)) return;
    const tombstone: GenericEntity = { id: retiredKey(kind, id), kind, key: id };
    await this.store.upsert({ kind: RETIRED, id: tombstone.id, tenantId: null, data: tombstone });
    this.setInMemory(RETIRED, tombstone);
  }

  /**
   * Counts the changes listeners heard (local and other nodes' alike): a read that depends only
   * on the directory may be kept while it stays the same (src/api/route-core/read-cache.ts).
   */
  get generation(): number {
    return this.changes;
  }

  onChange(listener: Listener): () => void {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  isEmpty(): boolean {
    return this.byKind.size === 0;
  }

  // ---- typed lookups used by the switch and the APIs ------------------------------------------

  tenant(tenantId: number): Tenant | undefined {
    return this.get('tenant', String(tenantId));
  }
  tenants(): Tenant[] {
    return this.list('tenant').sort((a, b) => a.tenantId - b.tenantId);
  }
  /** Digits-only or E.164 DID, e.g. `5555550100`. */
  tenantByDid(did: string): Tenant | undefined {
    return this.tenantByDidIndex.get(normalizeNumber(did));
  }
  /**
   * The tenants a main DID would be found as (with and without a North American country code):
   * another tenant among them holds it already, under one of its spellings.
   */
  tenantsByDidKeys(did: string): Tenant[] {
    return numberKeys(did).flatMap((k) => this.tenantByDidIndex.get(k) ?? []);
  }
  tenantByUrl(url: string): Tenant | undefined {
    return this.tenantByUrlIndex.get(url.toLowerCase());
  }
  tenantByCcUuid(uuid: string): Tenant | undefined {
    return this.tenantByCcUuidIndex.get(uuid.toLowerCase());
  }
  telcoUser(username: string): TelcoUser | undefined {
    return this.get('telcoUser', username);
  }
  extension(tenantId: number, ext: string): Extension | undefined {
    return this.get('extension', extensionKey(tenantId, ext));
  }
  extensions(tenantId: number): Extension[] {
    return this.list('extension', tenantId).sort((a, b) => naturalCompare(a.ext, b.ext));
  }
  extensionByUuid(uuid: string): Extension | undefined {
    return this.extensionByUuidIndex.get(uuid.toLowerCase());
  }
  device(id: string): Device | undefined {
    return this.get('device', id);
  }
  devicesOf(tenantId: number, ext: string): Device[] {
    return this.devicesByOwner.get(extensionKey(tenantId, ext)) ?? [];
  }
  didByNumber(number: string): Did | undefined {
    return this.didIndex.get(normalizeNumber(number));
  }
  parkLocations(tenantId: number): number[] {
    const out = new Set<number>();
    for (const r of this.list('parkRange', tenantId)) for (let n = r.first; n <= r.last; n++) out.add(n);
    return [...out].sort((a, b) => a - b);
  }
  presenceOptions(tenantId: number): PresenceOption[] {
    return this.list('presenceOption', tenantId);
  }
  outboundQueues(tenantId: number): OutboundQueue[] {
    return this.list('outboundQueue', tenantId);
  }

  // ---- internals ---------------------------------------------------------------------------

  private fill(entities: StoredEntity[]): void {
    this.byKind = new Map();
    this.byKindTenant = new Map();
    for (const e of entities) this.setInMemory(e.kind, e.data);
    this.reindex();
  }

  /** The store holds `copy` (put or create): memory, indexes, listeners, then the other nodes. */
  private async written(kind: string, copy: GenericEntity, before?: GenericEntity): Promise<void> {
    this.setInMemory(kind, copy);
    this.reindex();
    this.emit({ op: 'put', kind, before, after: copy });
    await this.replicate?.([{ kind, id: copy.id }]);
  }

  private setInMemory(kind: string, entity: GenericEntity): void {
    let m = this.byKind.get(kind);
    if (!m) {
      m = new Map();
      this.byKind.set(kind, m);
    }
    const before = m.get(entity.id);
    m.set(entity.id, entity);
    if (before && before.tenantId !== entity.tenantId) {
      this.byKindTenant.get(tenantKey(kind, before.tenantId))?.delete(entity.id);
      this.refillTenant(kind, entity.tenantId);
      return;
    }
    const key = tenantKey(kind, entity.tenantId);
    let t = this.byKindTenant.get(key);
    if (!t) {
      t = new Map();
      this.byKindTenant.set(key, t);
    }
    t.set(entity.id, entity);
  }

  /** A record moved to another tenant: that tenant's records again in `byKind` order. */
  private refillTenant(kind: string, tenantId: unknown): void {
    const t = new Map<string, GenericEntity>();
    for (const e of this.byKind.get(kind)!.values()) if (e.tenantId === tenantId) t.set(e.id, e);
    this.byKindTenant.set(tenantKey(kind, tenantId), t);
  }

  private reindex(): void {
    this.didIndex = new Map();
    for (const d of this.list('did')) for (const k of numberKeys(d.number)) this.didIndex.set(k, d);
    this.tenantByDidIndex = new Map();
    this.tenantByUrlIndex = new Map();
    this.tenantByCcUuidIndex = new Map();
    for (const t of this.list('tenant')) {
      if (t.did) for (const k of numberKeys(t.did)) this.tenantByDidIndex.set(k, t);
      if (t.webLoginUrl) this.tenantByUrlIndex.set(t.webLoginUrl.toLowerCase(), t);
      this.tenantByCcUuidIndex.set(t.cc.uuid.toLowerCase(), t);
    }
    this.extensionByUuidIndex = new Map(this.list('extension').map((e) => [e.uuid.toLowerCase(), e]));
    this.devicesByOwner = new Map();
    for (const d of this.list('device').sort((a, b) => a.id.localeCompare(b.id))) {
      const k = extensionKey(d.tenantId, d.ownerExt);
      const arr = this.devicesByOwner.get(k) ?? [];
      arr.push(d);
      this.devicesByOwner.set(k, arr);
    }
  }

  private emit(change: DirectoryChange): void {
    this.changes++;
    for (const l of this.listeners) l(change);
  }
}

/** The kind of the tombstones of removed records. */
const RETIRED = 'retiredId';
const retiredKey = (kind: string, id: string) => `${kind}/${id}`;
/** Keeps `list`'s strict equality: a tenant id stored as a string is not the number. */
const tenantKey = (kind: string, tenantId: unknown) => `${kind}/${typeof tenantId}:${String(tenantId)}`;

/** `+1 (555) 555-0100` -> `15555550100`. */
export function normalizeNumber(n: string): string {
  return n.replace(/[^0-9*#]/g, '');
}

/** A North American number is found with or without its country code 1. */
function numberKeys(n: string): string[] {
  const digits = normalizeNumber(n);
  return digits.length === 11 && digits.startsWith('1') ? [digits, digits.slice(1)] : [digits];
}
