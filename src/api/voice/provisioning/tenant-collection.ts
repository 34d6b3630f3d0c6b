import { invalid } from '../../../core/errors.js';
import type { Directory } from '../../../directory/directory.js';
import type { Extension, ExtensionType } from '../../../directory/model.js';
import type { Scope } from './backing.js';
import type { CollectionDef } from './collection.js';
import { type ExtensionMapping, extensionBacking } from './extension-backing.js';
import { PATTERNS, f } from './fields.js';

/** Tenant configuration: telco tenant managers (scoped or not) and tenant admins. */
export const CONFIG = ['UT:TBAM', 'ST:TBAM', 'TA'];
export const CONFIG_U = [...CONFIG, 'U'];
export const T = '/v1/tenants/:tenantId';
export const PERSON: readonly ExtensionType[] = ['userExt', 'locationExt'];

export const fieldError = (field: string, detail: string) =>
  invalid('INVALID_FIELD', `Field "${field}": ${detail}.`, [{ type: 'field', value: field }]);

/** `fields` keys renamed to model keys; absent ones stay absent (a PUT lists only what changes). */
export function rename(
  fields: Record<string, unknown>,
  map: Record<string, string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[map[k] ?? k] = v;
  return out;
}

/** A string restricted to a fixed set where the API has no enum for it. */
export const choice = (values: readonly string[]) => ({
  pattern: new RegExp(`^(${values.join('|')})$`),
  hint: `one of ${values.join(', ')}`,
  oneOf: values,
});

export function requireExtension(
  dir: Directory,
  tenantId: number,
  ext: unknown,
  types: readonly ExtensionType[],
  field: string,
): Extension {
  const e = typeof ext === 'string' ? dir.extension(tenantId, ext) : undefined;
  if (!e || !types.includes(e.type))
    throw fieldError(field, `no ${types.join(' or ')} extension ${String(ext)}`);
  return e;
}

export function checkSite(s: Scope, siteId: unknown): void {
  if (siteId === undefined || siteId === null) return;
  const site = s.runtime.directory.get('site', String(siteId));
  if (!site || site.tenantId !== s.tenantId) throw fieldError('siteId', `no site ${String(siteId)}`);
}

/** Every listed extension exists with one of `types`, and none is listed twice. */
export function checkMembers(s: Scope, list: unknown, field: string, types: readonly ExtensionType[]): void {
  const members = (list ?? []) as string[];
  members.forEach((m, i) => {
    requireExtension(s.runtime.directory, s.tenantId!, m, types, `${field}[${i}]`);
    if (members.indexOf(m) !== i) throw fieldError(`${field}[${i}]`, `${m} is listed twice`);
  });
}

export type TenantRow = Omit<CollectionDef, 'listPath' | 'itemPath' | 'rules'> & {
  /** The path segment under `/v1/tenants/{tenantId}/`. */
  segment: string;
  /** Default: tenant configuration authorities for every verb. */
  rules?: CollectionDef['rules'];
};

/** One tenant-scoped collection: `/v1/tenants/{tenantId}/<segment>[/{id}]`. */
export function tenantCollection(o: TenantRow): CollectionDef {
  const { segment, ...rest } = o;
  return {
    listPath: `${T}/${segment}`,
    itemPath: `${T}/${segment}/:${o.idField}`,
    rules: { read: CONFIG, create: CONFIG, update: CONFIG, remove: CONFIG },
    ...rest,
    fields: {
      [o.idField]: f.str({ readOnly: true }),
      tenantId: f.int({ readOnly: true, always: true }),
      ...o.fields,
    },
  };
}

export type ExtensionRow = Omit<TenantRow, 'backing' | 'idField'> &
  Omit<ExtensionMapping, 'idField'> & {
    /** The id property when it is not `extension` (`acdId`); it carries the number too. */
    idField?: string;
  };

/** A collection of extensions of some types: users, locations, ACDs, call groups, auto attendants. */
export function extensionCollection(o: ExtensionRow): CollectionDef {
  const { types, createType, toWire, apply, idField = 'extension', fields, ...rest } = o;
  return tenantCollection({
    ...rest,
    idField,
    // The client chooses the extension number: PUT on an absent one creates it.
    clientKey: 'extension',
    summary: rest.summary ?? [idField, 'name'],
    fields: {
      extension: f.str({ required: true, ...PATTERNS.digits }),
      accountId: f.str({ readOnly: true, always: true }),
      extensionType: f.enum('extensionType', { readOnly: true, always: true }),
      enabled: f.bool({ default: true, adminOnly: true }),
      ...fields,
    },
    backing: extensionBacking({
      types,
      createType,
      toWire,
      apply,
      idField: idField === 'extension' ? undefined : idField,
    }),
  });
}
