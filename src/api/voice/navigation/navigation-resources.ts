import { notFound } from '../../../core/errors.js';
import { allows, type Principal } from '../../../core/permissions.js';
import { fillTemplate, link, perPrincipal } from '../hal/links.js';
import type { Links } from '../hal/model.js';
import type { ResourceDef } from '../hal/resource.js';
import { type TSchema, Type } from '@sinclair/typebox';
import {
  ApiRootSchema,
  RelationDocumentSchema,
  UriDictionarySchema,
  V1RootSchema,
} from './navigation-schemas.js';
import { RELATION_DOCS } from './relation-docs.js';
import { URI_DICTIONARY } from './uri-dictionary-table.js';
import { V1_ROOT } from './v1-root-table.js';

const ANYONE = ['T:*', 'ST:TBAM', 'ST:SM', 'ST:EM', 'ST:SBAM', 'ST:CC', 'TA', 'U'];
const TAGS = ['navigation'];
const ok = (description: string, schema: TSchema) => ({ '200': { description, schema } });

/** tenantId/tenantName: only for a subscriber and for a telco user with tenant scope. */
function tenantProps(ctx: {
  principal: Principal;
  runtime: { directory: { tenant(id: number): { name: string } | undefined } };
}) {
  const { principal: p } = ctx;
  if (p.tenantId === undefined) return {};
  return { tenantId: p.tenantId, tenantName: ctx.runtime.directory.tenant(p.tenantId)?.name };
}

/** The v1 root's links for the requester: the same for every request of that principal. */
export const v1RootLinks = (p: Principal): Links => rootLinksOf(p, undefined);
const rootLinksOf = perPrincipal((p: Principal): Links => {
  const links: Links = { self: link('/api/v1') };
  for (const row of V1_ROOT) {
    if (allows(p, row.rules) && (row.only?.(p) ?? true))
      links[`v1:${row.rel}`] = fillTemplate(row.template, p);
  }
  return links;
});

/** The URI dictionary's links for the requester, likewise. */
const dictionaryLinksOf = perPrincipal((principal: Principal): Links => {
  const links: Links = { self: link('/api/v1/uridictionary') };
  // A dictionary addresses any entity of a kind: only the requester's tenant is filled in,
  // never its own extension (v1:extension, v1:user, v1:location stay templates).
  const tenantOnly: Principal = { ...principal, ext: undefined };
  for (const row of URI_DICTIONARY) {
    if (allows(principal, row.rules)) links[`v1:${row.name}`] = fillTemplate(row.template, tenantOnly);
  }
  return links;
});

export const navigationResources: ResourceDef[] = [
  {
    path: '/',
    ns: 'api',
    verbs: {
      GET: {
        cached: true,
        rules: ANYONE,
        doc: {
          operationId: 'getApiRoot',
          summary: 'The API root',
          description: '`tenantId` and `tenantName` appear for tenant members and scoped telco users.',
          tags: TAGS,
          responses: ok('The API root.', ApiRootSchema),
        },
        handle: (ctx) => ({
          entity: {
            props: tenantProps(ctx),
            links: {
              self: link('/api'),
              'api:createWebsocket': link('/api/ws'),
              'api:v1': link('/api/v1'),
            },
          },
        }),
      },
    },
  },
  {
    path: '/v1',
    verbs: {
      GET: {
        cached: true,
        rules: ANYONE,
        doc: {
          operationId: 'getV1Root',
          summary: 'The v1 root',
          description: 'One link per relation of the v1 root table the requester may follow.',
          tags: TAGS,
          responses: ok('The v1 root.', V1RootSchema),
        },
        handle: (ctx) => ({ entity: { props: {}, links: v1RootLinks(ctx.principal) } }),
      },
    },
  },
  {
    path: '/v1/uridictionary',
    verbs: {
      GET: {
        cached: true,
        rules: ['UT:*', 'ST:CC', 'TA'],
        doc: {
          operationId: 'getUriDictionary',
          summary: 'The URI template dictionary',
          description: 'Templates of single resources, as the requester may use them (Telco, ST(CC), TA).',
          tags: TAGS,
          responses: ok('The dictionary.', UriDictionarySchema),
        },
        handle: (ctx) => ({ entity: { props: {}, links: dictionaryLinksOf(ctx.principal, undefined) } }),
      },
    },
  },
  ...(['/releases/:rel', '/v1/rels/:rel'] as const).map((path): ResourceDef => ({
    path,
    ns: path.startsWith('/v1') ? 'v1' : 'api',
    verbs: {
      GET: {
        cached: true,
        rules: ANYONE,
        doc: {
          operationId: path.startsWith('/v1') ? 'getV1Relation' : 'getApiRelation',
          summary: path.startsWith('/v1')
            ? 'A v1 link relation document (curies v1, v1options)'
            : 'An API link relation document (curie api)',
          tags: TAGS,
          params: Type.Object({ rel: Type.String({ description: 'The relation name, e.g. `tenants`.' }) }),
          responses: ok('The relation document.', RelationDocumentSchema),
        },
        handle: (ctx) => {
          const rel = ctx.params.rel;
          const doc = RELATION_DOCS.get(rel);
          if (!doc)
            throw notFound('RELATION_NOT_FOUND', `No link relation named ${rel}.`, [
              { type: 'value', value: rel },
            ]);
          const base = path.startsWith('/v1') ? '/api/v1/rels' : '/api/releases';
          return { entity: { props: { rel, ...doc }, links: { self: link(`${base}/${rel}`) } } };
        },
      },
    },
  })),
];
