import { type Static, Type } from '@sinclair/typebox';
import { invalid } from '../../../core/errors.js';
import { type Device, PHONE_MODELS } from '../../../directory/model.js';
import { halList, halObject } from '../hal/hal-schemas.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';
import { type ResourceDef, listEntity } from '../hal/resource.js';
import { PATTERNS } from './fields.js';

const MacAddressQuery = Type.Object({
  macAddress: Type.String({
    pattern: PATTERNS.mac.pattern.source,
    description: 'A MAC address, with or without separators, in either case: 02:5b:0a:0f:a1:2d.',
  }),
});

/** One phone a MAC address is provisioned to. */
export const ProvMacAddressSchema = halObject(
  {
    macAddress: Type.String({ pattern: PATTERNS.mac.pattern.source }),
    tenantId: Type.Integer(),
    phoneId: Type.String(),
    ownerExtension: Type.String(),
    model: Type.Union(PHONE_MODELS.map((m) => Type.Literal(m))),
    registered: Type.Boolean(),
  },
  { embedded: {} },
  { $id: 'ProvMacAddress' },
);

export const ProvMacAddressListSchema = halList('macAddresses', ProvMacAddressSchema, {
  $id: 'ProvMacAddressList',
});

export type ProvMacAddress = Static<typeof ProvMacAddressSchema>;
export type ProvMacAddressList = Static<typeof ProvMacAddressListSchema>;

const digitsOf = (mac: string) => mac.replace(/[^0-9a-fA-F]/g, '').toLowerCase();

function phoneFound(d: Device): Entity {
  return {
    props: {
      macAddress: d.macAddress,
      tenantId: d.tenantId,
      phoneId: d.id,
      ownerExtension: d.ownerExt,
      model: d.model,
      registered: d.registered,
    },
    links: { self: link(`/api/v1/tenants/${d.tenantId}/phones/${encodeURIComponent(d.id)}`) },
  };
}

/** `GET /api/v1/macaddresses?macAddress=`: which tenant and phone a MAC address is provisioned to. */
export const lookupResources: ResourceDef[] = [
  {
    path: '/v1/macaddresses',
    verbs: {
      GET: {
        cached: true,
        rules: ['UT:TBAM'],
        doc: {
          operationId: 'findMacAddress',
          summary: 'Find the phone a MAC address is provisioned to',
          description: 'Allowed to: UT:TBAM. The list is empty when no phone has the address.',
          tags: ['provisioning'],
          query: MacAddressQuery,
          refuse: () =>
            invalid('INVALID_QUERY', 'macAddress must be a MAC address such as 02:5b:0a:0f:a1:2d.', [
              { type: 'field', value: 'macAddress' },
            ]),
          responses: {
            '200': { description: 'The phones with this MAC address.', schema: ProvMacAddressListSchema },
          },
        },
        handle: (ctx) => {
          const mac = ctx.query('macAddress')!;
          const items = ctx.runtime.directory
            .list('device')
            .filter((d) => digitsOf(d.macAddress) === digitsOf(mac))
            .map(phoneFound);
          return {
            entity: listEntity(ctx, {
              name: 'macAddresses',
              schema: {
                fields: {
                  macAddress: 'string',
                  tenantId: 'integer',
                  phoneId: 'string',
                  ownerExtension: 'string',
                  model: 'string',
                  registered: 'boolean',
                },
              },
              items,
              links: { self: link(`/api/v1/macaddresses?macAddress=${encodeURIComponent(mac)}`) },
            }),
          };
        },
      },
    },
  },
];
