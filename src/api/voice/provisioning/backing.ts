import { conflict } from '../../../core/errors.js';
import { naturalCompare } from '../../../core/natural-order.js';
import type { Principal } from '../../../core/permissions.js';
import type { GenericEntity } from '../../../directory/model.js';
import type { Directory } from '../../../directory/directory.js';
import type { VoiceRuntime } from '../voice-runtime.js';

/** Where a provisioning request acts: the requester, its tenant (when the path names one), path params. */
export interface Scope {
  runtime: VoiceRuntime;
  principal: Principal;
  tenantId?: number;
  params: Record<string, string>;
}

/** One record as the wire sees it: its id and its properties (the id property included). */
export interface Row {
  id: string;
  props: Record<string, unknown>;
}

/**
 * How a collection reads and writes its records. A generic JSON kind of the directory is one
 * implementation; the typed kinds the switch reads (tenant, extension, device, ...) map their
 * model to wire fields in their own backings.
 */
export interface Backing {
  list(s: Scope): Row[];
  get(s: Scope, id: string): Row | undefined;
  /** Creates from validated wire fields; answers the new id. */
  create(s: Scope, fields: Record<string, unknown>): Promise<string>;
  update(s: Scope, id: string, patch: Record<string, unknown>): Promise<void>;
  remove(s: Scope, id: string): Promise<void>;
}

export interface JsonKindOptions {
  /** Directory kind of the records. */
  kind: string;
  /** The wire property holding the id (`zoneId`). */
  idField: string;
  tenantScoped?: boolean;
  /** Path parameters stored on the record and matched on every read (`langCode`). */
  partition?: readonly string[];
  /** The id comes from this wire field on create (a natural key such as `langCode`). */
  naturalKey?: boolean;
  /** Only these records of the kind belong to the collection (static sites, a user's phones). */
  select?: (e: GenericEntity, s: Scope) => boolean;
  /** Model -> wire properties, for the typed kinds the switch reads (default: the record as is). */
  toWire?: (e: GenericEntity, s: Scope) => Record<string, unknown>;
  /** Model fields a new record starts with (before the given fields apply). */
  initial?: (fields: Record<string, unknown>) => Record<string, unknown>;
  /** Validated wire fields -> model fields to store. */
  fromWire?: (fields: Record<string, unknown>, s: Scope) => Record<string, unknown>;
  /** The id of a new record (default: the next integer). */
  newId?: (s: Scope, fields: Record<string, unknown>) => string;
}

export const byId = (a: { id: string }, b: { id: string }) => naturalCompare(a.id, b.id);

/**
 * The next integer id of a kind, as a string: above every id the kind has or ever had (ids of
 * removed records are never handed out again, see `Directory.isRetired`).
 */
export function nextNumericId(dir: Directory, kind: string, prefix = '', above = 0): string {
  let max = above;
  for (const id of dir.idsEverUsed(kind)) {
    const rest = id.startsWith(prefix) ? id.slice(prefix.length) : '';
    if (/^\d+$/.test(rest)) max = Math.max(max, Number(rest));
  }
  return `${prefix}${max + 1}`;
}

/** `base`, or `base-2`, `base-3`, ... : the first that no record of `kind` has or ever had. */
export function unusedId(s: Scope, kind: string, base: string): string {
  const dir = s.runtime.directory;
  if (!dir.idTaken(kind, base)) return base;
  let n = 2;
  while (dir.idTaken(kind, `${base}-${n}`)) n++;
  return `${base}-${n}`;
}

/** How many ids a create tries after the first when other nodes take them first. */
const CREATE_ATTEMPTS = 16;

const asStored = ({ id: _id, tenantId: _t, ...rest }: GenericEntity): Record<string, unknown> => rest;

/** Records of one directory kind, each one JSON row; typed kinds map their model through hooks. */
export function jsonKindBacking(o: JsonKindOptions): Backing {
  const partition = o.partition ?? [];
  const toWire = o.toWire ?? asStored;
  const fromWire = o.fromWire ?? ((fields) => fields);
  const matches = (e: GenericEntity, s: Scope) =>
    (!o.tenantScoped || e.tenantId === s.tenantId) &&
    partition.every((p) => e[p] === s.params[p]) &&
    (o.select?.(e, s) ?? true);
  const toRow = (e: GenericEntity, s: Scope): Row => ({
    id: e.id,
    props: { [o.idField]: e.id, ...(o.tenantScoped ? { tenantId: e.tenantId } : {}), ...toWire(e, s) },
  });
  const stored = (s: Scope, id: string) => {
    const e = s.runtime.directory.get(o.kind, id);
    return e && matches(e, s) ? e : undefined;
  };
  return {
    list: (s) =>
      s.runtime.directory
        .list(o.kind, o.tenantScoped ? s.tenantId : undefined)
        .filter((e) => matches(e, s))
        .sort(byId)
        .map((e) => toRow(e, s)),
    get: (s, id) => {
      const e = stored(s, id);
      return e && toRow(e, s);
    },
    async create(s, fields) {
      const dir = s.runtime.directory;
      const { [o.idField]: given, ...rest } = fields;
      const exists = (id: string) =>
        conflict('ALREADY_EXISTS', `${o.idField} ${id} already exists.`, [
          { type: 'field', value: o.idField },
        ]);
      // A numeric id counts up from the highest this node knows; in a cluster another node may
      // have taken it a moment ago (the store refuses it), so the next is tried.
      let taken = 0;
      for (let attempt = 0; ; attempt++) {
        const id = o.naturalKey
          ? String(given)
          : (o.newId?.(s, fields) ?? nextNumericId(dir, o.kind, '', taken));
        if (dir.get(o.kind, id)) throw exists(id);
        const record: GenericEntity = {
          ...o.initial?.(fields),
          ...fromWire(o.naturalKey ? fields : rest, s),
          id,
        };
        if (o.tenantScoped) record.tenantId = s.tenantId;
        for (const p of partition) record[p] = s.params[p];
        if (await dir.create(o.kind, clean(record))) return id;
        const counted = !o.naturalKey && !o.newId && /^\d+$/.test(id);
        if (!counted || attempt >= CREATE_ATTEMPTS) throw exists(id);
        taken = Number(id);
      }
    },
    async update(s, id, patch) {
      const e = stored(s, id)!;
      const { [o.idField]: _ignored, ...rest } = patch;
      await s.runtime.directory.put(o.kind, clean({ ...e, ...fromWire(rest, s), id: e.id }));
    },
    async remove(s, id) {
      await s.runtime.directory.remove(o.kind, id);
    },
  };
}

/** JSON-clean copy: members set to undefined or null disappear, as they would through the database. */
export const clean = <T>(v: T): T =>
  JSON.parse(JSON.stringify(v, (_k, x) => (x === null ? undefined : x))) as T;

/** A fixed, read-only set of records (phone models), as seen from a scope (a tenant). */
export function staticBacking(rows: (s: Scope) => Row[]): Backing {
  const refuse = async (): Promise<never> => {
    throw new Error('read-only backing');
  };
  return {
    list: (s) => rows(s),
    get: (s, id) => rows(s).find((r) => r.id === id),
    create: refuse,
    update: refuse,
    remove: refuse,
  };
}

export const SINGLETON_ID = 'system';

/** The one record of a system setting (id `system`). */
export function singletonBacking(kind: string): Backing {
  const get = (s: Scope): Row | undefined => {
    const e = s.runtime.directory.get(kind, SINGLETON_ID);
    if (!e) return undefined;
    const { id, tenantId: _t, ...props } = e;
    return { id, props };
  };
  return {
    list: (s) => {
      const row = get(s);
      return row ? [row] : [];
    },
    get: (s) => get(s),
    // Cleaned as every record is: a field a PUT clears with null is absent, not null.
    async create(s, fields) {
      await s.runtime.directory.put(kind, clean({ ...fields, id: SINGLETON_ID }));
      return SINGLETON_ID;
    },
    async update(s, _id, patch) {
      await s.runtime.directory.put(kind, clean({ ...get(s)?.props, ...patch, id: SINGLETON_ID }));
    },
    async remove(s) {
      await s.runtime.directory.remove(kind, SINGLETON_ID);
    },
  };
}
