import { notFound } from '../../../core/errors.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';
import { listEntity, type ResourceDef } from '../hal/resource.js';
import { Type } from '@sinclair/typebox';
import { halQuery } from '../hal/hal-schemas.js';
import { EnumListSchema, EnumSchema } from './enum-schemas.js';
import { ENUM_BY_PATH, ENUMS, enumValues } from './enum-values.js';

/** Every authority the spec lists for enums. */
const EVERYONE = ['T:*', 'ST:CC', 'TA', 'U'] as const;
const READERS = [...EVERYONE, 'ST:TBAM', 'ST:SM', 'ST:EM', 'ST:SBAM'];

const enumHref = (name: string) => `/api/v1/enums/${name.toLowerCase()}`;

function enumEntity(name: string): Entity {
  return {
    props: { name, values: enumValues(name) },
    summary: ['name'],
    links: { self: link(enumHref(name)) },
  };
}

export const enumResources: ResourceDef[] = [
  {
    path: '/v1/enums',
    verbs: {
      GET: {
        cached: true,
        rules: READERS,
        doc: {
          operationId: 'listEnums',
          summary: 'Every enum of the API',
          tags: ['enums'],
          query: halQuery('list'),
          responses: {
            '200': { description: 'The enums (`expand=item` shows their values).', schema: EnumListSchema },
          },
        },
        handle: (ctx) => ({
          entity: listEntity(ctx, {
            name: 'enums',
            schema: { fields: { name: 'string' } },
            items: Object.keys(ENUMS).map(enumEntity),
            links: { self: link('/api/v1/enums') },
          }),
        }),
      },
    },
  },
  {
    path: '/v1/enums/:enumName',
    verbs: {
      GET: {
        cached: true,
        rules: READERS,
        doc: {
          operationId: 'getEnum',
          summary: 'One enum and its values',
          tags: ['enums'],
          params: Type.Object({
            enumName: Type.String({ description: 'The enum name, case-insensitive (`callrequest`).' }),
          }),
          responses: { '200': { description: 'The enum.', schema: EnumSchema } },
        },
        handle: (ctx) => {
          const name = ENUM_BY_PATH.get(ctx.params.enumName.toLowerCase());
          if (!name) {
            throw notFound('ENUM_NOT_FOUND', `No enum named ${ctx.params.enumName}.`, [
              { type: 'enumName', value: ctx.params.enumName },
            ]);
          }
          return { entity: enumEntity(name) };
        },
      },
    },
  },
];

export { enumHref };
