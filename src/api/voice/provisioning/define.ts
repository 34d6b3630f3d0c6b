import type { AccessRule } from '../../../core/permissions.js';
import { jsonKindBacking } from './backing.js';
import type { CollectionDef, Ref } from './collection.js';
import { type Fields, f } from './fields.js';

/** Which verbs a generic collection offers: full CRUD, update only (system-defined), or read only. */
export type Verbs = 'crud' | 'update' | 'read';

export interface JsonCollection {
  name: string;
  kind: string;
  listPath: string;
  itemPath: string;
  idField: string;
  fields: Fields;
  read: AccessRule[];
  /** Who may write; default: the readers. */
  write?: AccessRule[];
  verbs?: Verbs;
  tenantScoped?: boolean;
  partition?: readonly string[];
  /** The id is the wire field `idField`, given on create. */
  naturalKey?: boolean;
  refs?: Record<string, Ref>;
  summary?: readonly string[];
  check?: CollectionDef['check'];
}

/** One table row of a collection stored as a generic directory kind. */
export function jsonCollection(o: JsonCollection): CollectionDef {
  const write = o.write ?? o.read;
  const verbs = o.verbs ?? 'crud';
  const idSpec = o.naturalKey ? o.fields[o.idField] : f.str({ readOnly: true });
  return {
    name: o.name,
    listPath: o.listPath,
    itemPath: o.itemPath,
    idField: o.idField,
    ...(o.naturalKey ? { clientKey: o.idField } : {}),
    fields: {
      [o.idField]: idSpec,
      ...(o.tenantScoped ? { tenantId: f.int({ readOnly: true, always: true }) } : {}),
      ...o.fields,
    },
    summary: o.summary,
    rules: {
      read: o.read,
      create: verbs === 'crud' ? write : undefined,
      update: verbs === 'read' ? undefined : write,
      remove: verbs === 'crud' ? write : undefined,
    },
    backing: jsonKindBacking({
      kind: o.kind,
      idField: o.idField,
      tenantScoped: o.tenantScoped,
      partition: o.partition,
      naturalKey: o.naturalKey,
    }),
    refs: o.refs,
    check: o.check,
  };
}

/** Several references with their targets, resolved lazily (tables refer to each other). */
export const refsTo = (
  table: () => Record<string, CollectionDef>,
  pairs: Record<string, [field: string, target: string]>,
): Record<string, Ref> =>
  Object.fromEntries(
    Object.entries(pairs).map(([name, [field, target]]) => [name, { field, target: () => table()[target] }]),
  );
