import { type TProperties, Type } from '@sinclair/typebox';
import type { AccessRule } from '../../../core/permissions.js';
import { TenantIdParam, type VerbDoc } from '../hal/resource.js';
import { refuseBody } from './body-issues.js';
import type { CollectionDef, SingletonDef } from './collection.js';
import {
  capitalized,
  collectionSchemas,
  singletonSchemas,
  singular,
  specName,
} from './provisioning-schemas.js';

/**
 * The `voice` OpenAPI entries of the generated provisioning verbs: one per verb of every
 * collection and setting, with the schemas of provisioning-schemas.ts (which also validate bodies).
 */
export type CollectionOp = 'list' | 'create' | 'read' | 'update' | 'remove';

const TAGS = ['provisioning'];

const EXPAND = Type.Optional(
  Type.String({
    description:
      'Embeds to show whole instead of their summary: relation names, comma-separated (`item` for the elements of a list).',
  }),
);
const FILTER = Type.Optional(
  Type.String({
    description:
      'Keeps the elements that match, e.g. `eq(name,Sales)` or `eq(carrier.name,Example Carrier)`: scalar properties and those of embeds.',
  }),
);

const LOCATION = { description: 'The new record’s address.', schema: Type.String(), required: true };

const ACRONYMS: Record<string, string> = {
  aa: 'auto-attendant',
  vm: 'voicemail',
  acd: 'ACD',
  acds: 'ACDs',
  did: 'DID',
  dids: 'DIDs',
  dhcp: 'DHCP',
  rtp: 'RTP',
  pri: 'PRI',
  cr: 'CR',
  callp: 'call processing',
  pin: 'PIN',
};

/** `rtpProxyServers` -> `RTP proxy servers`. */
const words = (name: string) =>
  name
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .split(' ')
    .map((w) => ACRONYMS[w] ?? w)
    .join(' ');

const article = (phrase: string) => (/^[aeiouAEIOU]/.test(phrase) ? `an ${phrase}` : `a ${phrase}`);

const who = (rules: readonly AccessRule[]) => `Allowed to: ${rules.join(', ')}.`;

/** The path parameters, described (`:tenantId`, `:langCode`, the record's id). */
function pathParams(path: string, idField?: string, record?: string) {
  const props: TProperties = {};
  for (const [, name] of path.matchAll(/:(\w+)/g)) {
    if (name === 'tenantId') {
      props[name] = TenantIdParam;
      continue;
    }
    props[name!] = Type.String({
      description:
        name === idField
          ? `The ${record} record's ${idField}.`
          : name === 'langCode'
            ? 'A provisioned language code, e.g. `en`.'
            : name === 'extension'
              ? 'An extension number of the tenant.'
              : `The ${name}.`,
    });
  }
  return Object.keys(props).length ? { params: Type.Object(props) } : {};
}

export function collectionDoc(def: CollectionDef, op: CollectionOp): VerbDoc {
  const schemas = collectionSchemas(def);
  const plural = words(def.name);
  const record = words(singular(def.name));
  const Plural = capitalized(def.name);
  const One = specName(def.name);
  const item = op !== 'list' && op !== 'create';
  const path = item ? def.itemPath : def.listPath;
  const base = { tags: TAGS, ...pathParams(path, item ? def.idField : undefined, record) };
  const refs = def.refs
    ? ` Every reference (${Object.values(def.refs)
        .map((r) => r.field)
        .join(', ')}) must name an existing record (400 UNKNOWN_REFERENCE).`
    : '';
  const own = def.ownerField
    ? ` Users and locations reach only records whose ${def.ownerField} is their own (403 OWN_RECORD_ONLY).`
    : '';
  switch (op) {
    case 'list':
      return {
        ...base,
        operationId: `list${Plural}`,
        summary: `List the ${plural}`,
        description: `${who(def.rules.list ?? def.rules.read)} Elements show their summary properties unless expanded.${own}`,
        query: Type.Object({ expand: EXPAND, filter: FILTER }),
        responses: { '200': { description: `The ${plural}.`, schema: schemas.list } },
      };
    case 'create':
      return {
        ...base,
        operationId: `create${One}`,
        summary: `Create ${article(record)}`,
        description: `${who(def.rules.create!)} A body that does not match the schema is refused with 400 INVALID_FIELD naming the field.${refs}`,
        body: schemas.create,
        refuse: refuseBody(def.fields),
        responses: {
          '201': {
            description: `The new ${record} record.`,
            schema: schemas.item,
            headers: { Location: LOCATION },
          },
        },
      };
    case 'read':
      return {
        ...base,
        operationId: `get${One}`,
        summary: `Read ${article(record)}`,
        description: `${who(def.rules.read)}${own}`,
        query: Type.Object({ expand: EXPAND }),
        responses: { '200': { description: `The ${record} record.`, schema: schemas.item } },
      };
    case 'update': {
      const creates = def.clientKey !== undefined && def.rules.create !== undefined;
      const create = creates
        ? ` The client names the key: on an absent ${record}, the body is a create body (${def.clientKey} taken from the path) and ${who(def.rules.create!).replace('Allowed to', 'those allowed to create')} get 201 with Location; the others 404.`
        : ' An absent record is 404: the server assigns keys.';
      return {
        ...base,
        operationId: `update${One}`,
        summary: creates ? `Change ${article(record)}, or create it` : `Change ${article(record)}`,
        description: `${who(def.rules.update!)} Only the properties given change.${create}${refs}${own}`,
        body: schemas.update,
        bodyRequired: false,
        refuse: refuseBody(def.fields),
        responses: {
          '200': { description: `The ${record} record as changed.`, schema: schemas.item },
          ...(creates
            ? {
                '201': {
                  description: `The new ${record} record, created at the path.`,
                  schema: schemas.item,
                  headers: { Location: LOCATION },
                },
              }
            : {}),
        },
      };
    }
    case 'remove':
      return {
        ...base,
        operationId: `delete${One}`,
        summary: `Delete ${article(record)}`,
        description: `${who(def.rules.remove!)} A record another record still refers to is kept (409 IN_USE).`,
        responses: { '200': { description: 'Deleted; the body is empty.' } },
      };
  }
}

export function singletonDoc(def: SingletonDef, op: 'read' | 'update'): VerbDoc {
  const schemas = singletonSchemas(def);
  const Name = capitalized(def.name);
  const setting = words(def.name);
  if (op === 'read') {
    return {
      operationId: `get${Name}`,
      summary: `Read the ${setting}`,
      description: who(def.rules.read),
      tags: TAGS,
      query: Type.Object({ expand: EXPAND }),
      responses: { '200': { description: `The ${setting}.`, schema: schemas.item } },
    };
  }
  return {
    operationId: `update${Name}`,
    summary: `Change the ${setting}`,
    description: `${who(def.rules.update!)} Only the properties given change.`,
    tags: TAGS,
    body: schemas.update,
    bodyRequired: false,
    refuse: refuseBody(def.fields),
    responses: { '200': { description: `The ${setting} as changed.`, schema: schemas.item } },
  };
}
