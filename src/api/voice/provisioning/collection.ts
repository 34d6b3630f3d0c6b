import { conflict, forbidden, invalid, notFound } from '../../../core/errors.js';
import { atMost } from '../../schema/bounds.js';
import { type AccessRule, type Principal, allows } from '../../../core/permissions.js';
import { firstIssue } from '../../schema/validate.js';
import { refuseBody } from './body-issues.js';
import { collectionSchemas } from './provisioning-schemas.js';
import type { TSchema } from '@sinclair/typebox';
import { link } from '../hal/links.js';
import type { Entity, ItemSchema, Links } from '../hal/model.js';
import {
  type Ctx,
  type Outcome,
  type ResourceDef,
  type VerbDef,
  type VerbDoc,
  listEntity,
} from '../hal/resource.js';
import { inTurn } from './serial.js';
import { type Backing, type Row, SINGLETON_ID, type Scope } from './backing.js';
import {
  type Fields,
  acceptBody,
  adminOnlyFieldsIn,
  filterSchema,
  isRecord,
  visibleProps,
} from './fields.js';
import { type CollectionOp, collectionDoc, singletonDoc } from './provisioning-docs.js';

/** A property that names a record of another collection: linked, embedded for `expand`, checked on write. */
export interface Ref {
  /** The wire property holding the id: `carrierId`, an array `codecs`, or `rules[].routeId`. */
  field: string;
  target: () => CollectionDef;
}

/**
 * One provisioning collection: a row of the table. The builder turns it into a list resource
 * (GET, POST) and an item resource (GET, PUT, DELETE); a verb without rules answers 405.
 */
export interface CollectionDef {
  /** The `_embedded` name of the list's elements (and the relation name). */
  name: string;
  /** Under /api, Fastify syntax: `/v1/zones`, `/v1/tenants/:tenantId/users`. */
  listPath: string;
  /** `/v1/zones/:zoneId`; its last parameter is the id. */
  itemPath: string;
  /** The item routes are another collection's (a filtered view such as a user's phones). */
  itemRoutesElsewhere?: boolean;
  /** The id property, also the item path's last parameter. */
  idField: string;
  /**
   * The body property that names a new record's key when the client chooses keys (a language
   * code, an extension number): PUT on an absent item then creates it (201 with Location). Absent
   * where the server assigns keys; PUT on an absent item is 404 there.
   */
  clientKey?: string;
  fields: Fields;
  /** Properties an embedded, unexpanded element shows. */
  summary?: readonly string[];
  rules: {
    read: AccessRule[];
    /** Who may read the list, when narrower than `read`. */
    list?: AccessRule[];
    create?: AccessRule[];
    update?: AccessRule[];
    remove?: AccessRule[];
  };
  /** Another module serves GET of the item (and of the list, when `listGetElsewhere`). */
  itemGetElsewhere?: boolean;
  listGetElsewhere?: boolean;
  backing: Backing;
  refs?: Record<string, Ref>;
  /**
   * A user or location sees only records whose this property is their own extension, and may not
   * change `adminOnly` fields of them.
   */
  ownerField?: string;
  /** More links of an item (a tenant's sub-collections). */
  links?: (row: Row, s: Scope) => Links;
  /** Records embedded in an item that no property names (a user's phones), with their schema. */
  children?: Record<string, { schema: TSchema; of: (row: Row, s: Scope) => Entity[] }>;
  /** Cross-record rules on the merged record before a write (throws DomainError). */
  check?: (s: Scope, record: Record<string, unknown>, before?: Row) => void;
  /** What still refers to a record (a delete then answers 409); set by `guardReferences`. */
  inUse?: (s: Scope, id: string) => string | undefined;
  /** Checks the path's other parameters (a language code names a language) for every verb. */
  checkPath?: (s: Scope) => void;
}

/** A single record at one address (GET, PUT): a system setting. */
export interface SingletonDef {
  name: string;
  path: string;
  fields: Fields;
  rules: { read: AccessRule[]; update?: AccessRule[] };
  backing: Backing;
  refs?: Record<string, Ref>;
  /** Server-computed properties (read-only). */
  computed?: (s: Scope) => Record<string, unknown>;
}

const scopeIn = (ctx: Ctx): Scope => ({
  runtime: ctx.runtime,
  principal: ctx.principal,
  tenantId: ctx.tenantId,
  params: ctx.params,
});

/** A path template split once: literal text at even indexes, parameter names at odd ones. */
const templates = new Map<string, string[]>();
function templateOf(path: string): string[] {
  let parts = templates.get(path);
  if (!parts) {
    parts = `/api${path}`.split(/:(\w+)/);
    templates.set(path, parts);
  }
  return parts;
}

/**
 * `/v1/zones/:zoneId` with params -> `/api/v1/zones/7`. Called for every link of every item, so
 * the template is parsed once per path rather than by a regular expression per call (issue 19).
 */
export function hrefOf(path: string, params: Record<string, string | number | undefined>): string {
  const parts = templateOf(path);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i];
    out += encodeURIComponent(String(params[name] ?? `{${name}}`)) + parts[i + 1];
  }
  return out;
}

const isMember = (p: Principal) => p.authority === 'user' || p.authority === 'location';

function ownedByOther(def: CollectionDef, s: Scope, row: Row): boolean {
  return (
    def.ownerField !== undefined && isMember(s.principal) && row.props[def.ownerField] !== s.principal.ext
  );
}

/**
 * The value of path parameter `name` for `row`'s own address: the path's parameters, the row's id
 * as the id parameter, its tenant, and (when the path has none) its owner's extension.
 */
function itemParam(def: CollectionDef, s: Scope, row: Row, name: string): string | undefined {
  let v: string | undefined = name === def.idField ? row.id : s.params[name];
  if (name === 'tenantId') {
    if (s.tenantId !== undefined) v = String(s.tenantId);
    if (row.props.tenantId !== undefined) v = String(row.props.tenantId);
  }
  if (name === def.ownerField && typeof row.props[name] === 'string') v ??= row.props[name] as string;
  return v;
}

/**
 * A row's own address (`hrefOf(def.itemPath, …)`), filled from the row and the scope directly:
 * called for every item and every reference of a read, where building a params object per
 * row (a spread with a computed key, on V8's slow path) was the largest item of our code (issue 19).
 */
function itemHref(def: CollectionDef, s: Scope, row: Row): string {
  const parts = templateOf(def.itemPath);
  let out = parts[0];
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i];
    out += encodeURIComponent(itemParam(def, s, row, name) ?? `{${name}}`) + parts[i + 1];
  }
  return out;
}

/**
 * The ids a record names through a reference, each with the field that holds it. `field` is a
 * property (`carrierId`), an array property (`codecs`) or a path through an array of objects
 * (`rules[].routeId`).
 */
export function refIds(props: Record<string, unknown>, ref: Ref): { id: string; field: string }[] {
  const present = (v: unknown) => v !== undefined && v !== null && v !== '';
  const [outer, inner] = ref.field.split('[].');
  const v = props[outer];
  if (inner !== undefined) {
    if (!Array.isArray(v)) return [];
    return v.flatMap((item, i) => {
      const x = (item as Record<string, unknown> | null)?.[inner];
      return present(x) ? [{ id: String(x), field: `${outer}[${i}].${inner}` }] : [];
    });
  }
  if (Array.isArray(v)) return v.map((x, i) => ({ id: String(x), field: `${outer}[${i}]` }));
  return present(v) ? [{ id: String(v), field: outer }] : [];
}

const isMany = (ref: Ref, props: Record<string, unknown>) =>
  ref.field.includes('[].') || Array.isArray(props[ref.field]);

export function rowEntity(def: CollectionDef | SingletonDef, s: Scope, row: Row): Entity {
  const self = 'itemPath' in def ? itemHref(def, s, row) : hrefOf(def.path, s.params);
  const links: Links = { self: link(self) };
  const embeds: Record<string, () => Entity | Entity[]> = {};
  for (const [name, ref] of Object.entries(def.refs ?? {})) {
    const target = ref.target();
    const ids = [...new Set(refIds(row.props, ref).map((r) => r.id))];
    const rows = ids.map((id) => target.backing.get(s, id)).filter((r): r is Row => r !== undefined);
    if (rows.length === 0) continue;
    const many = isMany(ref, row.props);
    const hrefs = rows.map((r) => link(itemHref(target, s, r)));
    links[`v1:${name}`] = many ? hrefs : hrefs[0];
    embeds[name] = many
      ? () => rows.map((r) => rowEntity(target, s, r))
      : () => rowEntity(target, s, rows[0]);
  }
  if ('links' in def && def.links) Object.assign(links, def.links(row, s));
  if ('children' in def)
    for (const [name, child] of Object.entries(def.children ?? {})) embeds[name] = () => child.of(row, s);
  const summary = 'itemPath' in def ? (def.summary ?? [def.idField, 'name']) : undefined;
  return { props: visibleProps(def.fields, row.props), summary, links, embeds };
}

/** What `filter` may name on a list: the scalar properties, and those of directly embedded records. */
export function listSchema(def: CollectionDef): ItemSchema {
  let schema = listSchemas.get(def);
  if (!schema) {
    schema = buildListSchema(def);
    listSchemas.set(def, schema);
  }
  return schema;
}

/** Built once per collection, not on every list read (issue 19). */
const listSchemas = new WeakMap<CollectionDef, ItemSchema>();

function buildListSchema(def: CollectionDef): ItemSchema {
  const embeds: Record<string, ItemSchema> = {};
  for (const [name, ref] of Object.entries(def.refs ?? {})) embeds[name] = filterSchema(ref.target().fields);
  return filterSchema(def.fields, embeds);
}

function checkRefs(refs: Record<string, Ref> | undefined, s: Scope, record: Record<string, unknown>): void {
  for (const ref of Object.values(refs ?? {})) {
    const target = ref.target();
    for (const { id, field } of refIds(record, ref)) {
      if (!target.backing.get(s, id)) {
        throw invalid('UNKNOWN_REFERENCE', `Field "${field}": no ${target.name} record ${id}.`, [
          { type: 'field', value: field },
        ]);
      }
    }
  }
}

function found(def: CollectionDef, s: Scope, id: string): Row {
  const row = def.backing.get(s, id);
  if (!row) {
    throw notFound('NOT_FOUND', `No ${def.name} record ${id}.`, [{ type: 'value', value: id }]);
  }
  if (ownedByOther(def, s, row))
    throw forbidden('OWN_RECORD_ONLY', 'A user may reach only their own records.', [
      { type: 'value', value: id },
    ]);
  return row;
}

function refuseAdminOnly(def: { fields: Fields }, s: Scope, patch: Record<string, unknown>): void {
  if (!isMember(s.principal)) return;
  const denied = adminOnlyFieldsIn(def.fields, patch);
  if (denied.length > 0) {
    throw forbidden('FIELD_FORBIDDEN', `Only an administrator may change "${denied[0]}".`, [
      { type: 'field', value: denied[0] },
    ]);
  }
}

/** A verb, documented (its doc's body schema also validates the request before `handle`). */
const verb = (
  rules: AccessRule[] | undefined,
  doc: () => VerbDoc,
  handle: VerbDef['handle'],
): VerbDef | undefined => (rules ? { rules, doc: doc(), handle } : undefined);

/** A reading verb: its answer comes from the directory and phone registrations only, so it is kept. */
const readVerb = (
  rules: AccessRule[] | undefined,
  doc: () => VerbDoc,
  handle: VerbDef['handle'],
): VerbDef | undefined => (rules ? { rules, doc: doc(), handle, cached: true } : undefined);

/** A writing verb: its checks and its write take their turn with every other provisioning write. */
const writeVerb = (
  rules: AccessRule[] | undefined,
  doc: () => VerbDoc,
  handle: (ctx: Ctx) => Promise<Outcome>,
) => verb(rules, doc, (ctx) => inTurn(ctx.runtime, () => handle(ctx)));

/** The list and item resources of one collection. */
export function collectionResources(def: CollectionDef): ResourceDef[] {
  const { backing, rules } = def;
  const doc = (op: CollectionOp) => () => collectionDoc(def, op);
  const scopeOf = (ctx: Ctx): Scope => {
    const s = scopeIn(ctx);
    def.checkPath?.(s);
    return s;
  };
  const listResource: ResourceDef = {
    path: def.listPath,
    verbs: {
      GET: readVerb(def.listGetElsewhere ? undefined : (rules.list ?? rules.read), doc('list'), (ctx) => {
        const s = scopeOf(ctx);
        const rows = backing.list(s).filter((r) => !ownedByOther(def, s, r));
        return {
          entity: listEntity(ctx, {
            name: def.name,
            schema: listSchema(def),
            items: rows.map((r) => rowEntity(def, s, r)),
            links: { self: link(hrefOf(def.listPath, { ...ctx.params, tenantId: ctx.tenantId })) },
          }),
        };
      }),
      POST: writeVerb(rules.create, doc('create'), async (ctx) => createRecord(def, scopeOf(ctx), ctx.body)),
    },
  };
  if (def.itemRoutesElsewhere) return [listResource];
  const itemResource: ResourceDef = {
    path: def.itemPath,
    verbs: {
      GET: readVerb(def.itemGetElsewhere ? undefined : rules.read, doc('read'), (ctx) => {
        const s = scopeOf(ctx);
        return { entity: rowEntity(def, s, found(def, s, ctx.params[def.idField])) };
      }),
      PUT: writeVerb(rules.update, doc('update'), async (ctx) => {
        const s = scopeOf(ctx);
        const key = ctx.params[def.idField];
        if (creatableByPut(def, s, key)) return createAt(def, s, key, ctx.body);
        const before = found(def, s, key);
        const patch = acceptBody(def.fields, ctx.body, 'update');
        refuseAdminOnly(def, s, patch);
        const merged = { ...before.props, ...patch };
        checkRefs(def.refs, s, merged);
        def.check?.(s, merged, before);
        await backing.update(s, before.id, patch);
        return { entity: rowEntity(def, s, backing.get(s, before.id)!) };
      }),
      DELETE: writeVerb(rules.remove, doc('remove'), async (ctx) => {
        const s = scopeOf(ctx);
        const row = found(def, s, ctx.params[def.idField]);
        const user = def.inUse?.(s, row.id);
        if (user) {
          throw conflict('IN_USE', `${def.name} record ${row.id} is still referred to by ${user}.`, [
            { type: 'value', value: row.id },
          ]);
        }
        await backing.remove(s, row.id);
        return { empty: true };
      }),
    },
  };
  return [listResource, itemResource];
}

/** PUT on an absent item creates it where the client names keys and the requester may create. */
function creatableByPut(def: CollectionDef, s: Scope, key: string): boolean {
  const create = def.rules.create;
  return (
    def.clientKey !== undefined &&
    create !== undefined &&
    allows(s.principal, create) &&
    def.backing.get(s, key) === undefined
  );
}

/** Creates the record the path names: the body as for POST, with the path's key. */
async function createAt(def: CollectionDef, s: Scope, key: string, body: unknown): Promise<Outcome> {
  const given = isRecord(body) ? body : {};
  const keyField = def.clientKey!;
  const wanted = def.fields[keyField]?.type === 'integer' ? Number(key) : key;
  if (given[keyField] !== undefined && given[keyField] !== wanted) {
    throw invalid('INVALID_FIELD', `Field "${keyField}": must be ${key}, as in the path.`, [
      { type: 'field', value: keyField },
    ]);
  }
  const withKey = { ...given, [keyField]: wanted };
  const issue = firstIssue(collectionSchemas(def).create, withKey);
  if (issue) throw refuseBody(def.fields)(issue);
  return createRecord(def, s, withKey);
}

/** POST, and PUT of an absent client-keyed item: 201 with the record and its address. */
async function createRecord(def: CollectionDef, s: Scope, body: unknown): Promise<Outcome> {
  atMost(def.backing.list(s).length, s.runtime.config.maxRecords, `${def.name} records here`);
  const fields = acceptBody(def.fields, body, 'create');
  if (def.ownerField && isMember(s.principal)) fields[def.ownerField] = s.principal.ext;
  checkRefs(def.refs, s, fields);
  def.check?.(s, fields);
  const id = await def.backing.create(s, fields);
  const entity = rowEntity(def, s, def.backing.get(s, id)!);
  return { entity, status: 201, location: (entity.links.self as { href: string }).href };
}

/** The GET/PUT resource of one system setting. */
export function singletonResources(def: SingletonDef): ResourceDef[] {
  const rowOf = (s: Scope): Row => {
    const row = def.backing.get(s, SINGLETON_ID) ?? {
      id: SINGLETON_ID,
      props: acceptBody(def.fields, {}, 'create'),
    };
    return { id: row.id, props: { ...row.props, ...def.computed?.(s) } };
  };
  return [
    {
      path: def.path,
      verbs: {
        GET: readVerb(
          def.rules.read,
          () => singletonDoc(def, 'read'),
          (ctx) => ({ entity: rowEntity(def, scopeIn(ctx), rowOf(scopeIn(ctx))) }),
        ),
        PUT: writeVerb(
          def.rules.update,
          () => singletonDoc(def, 'update'),
          async (ctx) => {
            const s = scopeIn(ctx);
            const patch = acceptBody(def.fields, ctx.body, 'update');
            checkRefs(def.refs, s, { ...rowOf(s).props, ...patch });
            if (def.backing.get(s, SINGLETON_ID)) await def.backing.update(s, SINGLETON_ID, patch);
            else await def.backing.create(s, { ...acceptBody(def.fields, {}, 'create'), ...patch });
            return { entity: rowEntity(def, s, rowOf(s)) };
          },
        ),
      },
    },
  ];
}

/**
 * Every collection that some record refers to (through `refs`) refuses to delete a record still
 * referred to. Answers the tables with `inUse` set where needed.
 */
export function guardReferences(
  defs: readonly CollectionDef[],
  referrers: readonly (CollectionDef | SingletonDef)[],
): CollectionDef[] {
  return defs.map((def) => {
    const users = referrers.flatMap((r) =>
      Object.values(r.refs ?? {})
        .filter((ref) => ref.target() === def)
        .map((ref) => ({ r, ref })),
    );
    if (users.length === 0) return def;
    const inUse = (s: Scope, id: string) => {
      for (const { r, ref } of users) {
        const hit = r.backing.list(s).find((row) => refIds(row.props, ref).some((x) => x.id === id));
        if (hit) return 'itemPath' in r ? `${r.name} ${hit.id}` : r.name;
      }
      return undefined;
    };
    return { ...def, inUse };
  });
}
