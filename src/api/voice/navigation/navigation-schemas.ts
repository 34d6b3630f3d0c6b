import { type Static, Type } from '@sinclair/typebox';
import { halObject } from '../hal/hal-schemas.js';
import { URI_DICTIONARY } from './uri-dictionary-table.js';
import { V1_ROOT } from './v1-root-table.js';

export const ApiRootSchema = halObject(
  {
    tenantId: Type.Optional(
      Type.Integer({ description: 'The requester’s tenant (tenant members and scoped telco users only).' }),
    ),
    tenantName: Type.Optional(Type.String({ description: 'The name of that tenant.' })),
  },
  { links: ['self', 'api:createWebsocket', 'api:v1'], closedLinks: true },
  { $id: 'ApiRoot', description: 'The API root: where the event WebSocket and the v1 root are.' },
);
export type ApiRoot = Static<typeof ApiRootSchema>;

export const V1RootSchema = halObject(
  {},
  { links: ['self'], optionalLinks: V1_ROOT.map((row) => `v1:${row.rel}`), closedLinks: true },
  {
    $id: 'V1Root',
    description:
      'The v1 root: a link per relation of the spec’s table that the requester may follow; known ' +
      'variables (`tenantId`, `extension`) are filled in, others stay templates.',
  },
);
export type V1Root = Static<typeof V1RootSchema>;

export const UriDictionarySchema = halObject(
  {},
  { links: ['self'], optionalLinks: URI_DICTIONARY.map((row) => `v1:${row.name}`), closedLinks: true },
  {
    $id: 'UriDictionary',
    description:
      'URI templates of single resources, those the requester may use; only `tenantId` is filled in.',
  },
);
export type UriDictionary = Static<typeof UriDictionarySchema>;

export const RelationDocumentSchema = halObject(
  {
    rel: Type.String({ description: 'The relation name (without its curie prefix).' }),
    description: Type.String(),
    template: Type.Optional(Type.String({ description: 'The URI template the relation points to.' })),
  },
  { closedLinks: true },
  { $id: 'RelationDocument', description: 'What a link relation of the API means.' },
);
export type RelationDocument = Static<typeof RelationDocumentSchema>;
