import { invalid } from '../../../core/errors.js';
import type { Device } from '../../../directory/model.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';
import { type ResourceDef, listEntity } from '../hal/resource.js';
import { PATTERNS } from './fields.js';

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
        rules: ['UT:TBAM'],
        handle: (ctx) => {
          const mac = ctx.query('macAddress');
          if (!mac || !PATTERNS.mac.pattern.test(mac)) {
            throw invalid('INVALID_QUERY', 'macAddress must be a MAC address such as 02:5b:0a:0f:a1:2d.', [
              { type: 'field', value: 'macAddress' },
            ]);
          }
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
