import { forbidden, invalid, notFound } from '../../../core/errors.js';
import type { Principal } from '../../../core/permissions.js';
import { type Device, EXTENSION_TYPES, type Extension } from '../../../directory/model.js';
import { requestPrincipal } from '../../auth/request-principal.js';
import { link } from '../hal/links.js';
import type { Entity } from '../hal/model.js';
import type { Scope } from '../provisioning/backing.js';
import { type Ctx, listEntity, type ResourceDef, TenantIdParam } from '../hal/resource.js';
import { phoneFilterSchema, phonesOf } from '../provisioning/tenant-resources.js';
import { deviceStateEntity, extensionEntity, extensionSchema } from './directory-entities.js';
import { type TObject, type TSchema, Type } from '@sinclair/typebox';
import { halQuery } from '../hal/hal-schemas.js';
import {
  DeviceStateListSchema,
  DeviceStateSchema,
  ExtensionListSchema,
  ExtensionSchema,
  ExtensionTypeSchema,
  UserPhoneListSchema,
} from './directory-schemas.js';

const TenantId = TenantIdParam;
const Extension = Type.String({ description: 'The extension number.' });
const TenantParams = Type.Object({ tenantId: TenantId });
const ExtensionParams = Type.Object({ tenantId: TenantId, extension: Extension });
const DeviceParams = Type.Object({ deviceId: Type.String({ description: 'The phoneId.' }) });

const ExtensionListQuery = halQuery('list', {
  extensionType: Type.Optional(ExtensionTypeSchema),
  agent: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description: 'Only contact-center agents (`true`) or only the others (`false`).',
    }),
  ),
});

/** The doc of a directory GET. */
const readDoc = (
  operationId: string,
  summary: string,
  schema: TSchema,
  o: { params?: TObject; query?: TObject; description?: string },
) => ({
  operationId,
  summary,
  ...(o.description ? { description: o.description } : {}),
  tags: ['directory'],
  ...(o.params ? { params: o.params } : {}),
  ...(o.query ? { query: o.query } : {}),
  responses: { '200': { description: 'Found.', schema } },
});

const isNonAdmin = (p: Principal) => p.authority === 'user' || p.authority === 'location';

function extensionOf(ctx: Ctx, types: readonly Extension['type'][]): Extension {
  const ext = ctx.params.extension;
  const e = ctx.runtime.directory.extension(ctx.tenantId!, ext);
  if (!e || !types.includes(e.type)) {
    throw notFound('EXTENSION_NOT_FOUND', `No such extension ${ext}.`, [{ type: 'extension', value: ext }]);
  }
  return e;
}

function ownOnly(ctx: Ctx): void {
  if (isNonAdmin(ctx.principal) && ctx.principal.ext !== ctx.params.extension) {
    throw forbidden('OWN_EXTENSION_ONLY', 'A non-admin user may read only their own data.', [
      { type: 'extension', value: ctx.params.extension },
    ]);
  }
}

/** A device as the switch sees it now: registration is live state, not the provisioned default. */
const live =
  (ctx: Ctx) =>
  (d: Device): Device => ({ ...d, registered: ctx.runtime.switch.isRegistered(d.id) });
/** The extension's phones, rendered as the phone resource renders them (one scope per request). */
const scopes = new WeakMap<Ctx, Scope>();
function devicesOf(ctx: Ctx, e: Extension): () => Entity[] {
  let s = scopes.get(ctx);
  if (!s) {
    s = { runtime: ctx.runtime, principal: ctx.principal, tenantId: e.tenantId, params: ctx.params };
    scopes.set(ctx, s);
  }
  const scope = s;
  return () => phonesOf(scope, e.ext);
}

/** Directory-backed resources a CTI client needs: extensions, user, tenant, location, devices. */
export const directoryResources: ResourceDef[] = [
  {
    path: '/v1/tenants/:tenantId/extensions',
    verbs: {
      GET: {
        cached: true,
        rules: ['ST:CC', 'ST:TBAM', 'UT:TBAM', 'TA', 'U'],
        doc: {
          ...readDoc('listExtensions', 'The extensions of a tenant', ExtensionListSchema, {
            params: TenantParams,
            query: ExtensionListQuery,
            description:
              'Each extension embeds its phones (`expand=item` or `expand=phones` shows them). A bad ' +
              '`extensionType` or `agent` is 400 INVALID_QUERY.',
          }),
          refuse: (issue) => invalid('INVALID_QUERY', issue.message, [{ type: 'field', value: issue.field }]),
        },
        handle: (ctx) => {
          const type = ctx.query('extensionType');
          const agent = ctx.query('agent');
          const items = ctx.runtime.directory
            .extensions(ctx.tenantId!)
            .filter((e) => type === undefined || e.type === type)
            .filter((e) => agent === undefined || (e.agent?.isAgent ?? false) === (agent === 'true'))
            .map((e) => extensionEntity(e, devicesOf(ctx, e)));
          return {
            entity: listEntity(ctx, {
              name: 'extensions',
              schema: extensionSchema(),
              items,
              links: { self: link(`/api/v1/tenants/${ctx.tenantId}/extensions`) },
            }),
          };
        },
      },
    },
  },
  {
    path: '/v1/tenants/:tenantId/extensions/:extension',
    verbs: {
      GET: {
        cached: true,
        rules: ['ST:CC', 'ST:TBAM', 'UT:TBAM', 'TA', 'U'],
        doc: readDoc('getExtension', 'One extension of a tenant', ExtensionSchema, {
          params: ExtensionParams,
          query: halQuery('entity'),
        }),
        handle: (ctx) => {
          const e = extensionOf(ctx, EXTENSION_TYPES);
          return { entity: extensionEntity(e, devicesOf(ctx, e)) };
        },
      },
    },
  },
  {
    path: '/v1/tenants/:tenantId/users/:extension/phones',
    verbs: {
      GET: {
        cached: true,
        rules: ['ST:TBAM', 'UT:TBAM', 'TA', 'U'],
        doc: readDoc('listUserPhones', 'The phones of a user or location', UserPhoneListSchema, {
          params: ExtensionParams,
          query: halQuery('list'),
          description: 'A non-admin user reads only their own.',
        }),
        handle: (ctx) => {
          ownOnly(ctx);
          const e = extensionOf(ctx, ['userExt', 'locationExt']);
          return {
            entity: listEntity(ctx, {
              name: 'phones',
              schema: phoneFilterSchema(),
              items: devicesOf(ctx, e)(),
              links: { self: link(`/api/v1/tenants/${e.tenantId}/users/${e.ext}/phones`) },
            }),
          };
        },
      },
    },
  },
  {
    path: '/v1/devicestates',
    verbs: {
      GET: {
        cached: true,
        catchUp: true,
        rules: ['ST:TBAM', 'UT:TBAM'],
        doc: readDoc('listDeviceStates', 'The registration state of every phone', DeviceStateListSchema, {
          query: halQuery('list'),
          description: 'A scoped telco user sees the phones of their tenant.',
        }),
        handle: (ctx) => {
          const t = ctx.principal.tenantId;
          return {
            entity: listEntity(ctx, {
              name: 'deviceStates',
              schema: {
                fields: {
                  deviceId: 'string',
                  tenantId: 'integer',
                  ownerExtension: 'string',
                  model: 'string',
                  state: 'string',
                },
              },
              items: ctx.runtime.directory
                .list('device', t)
                .sort((a, b) => a.id.localeCompare(b.id))
                .map(live(ctx))
                .map(deviceStateEntity),
              links: { self: link('/api/v1/devicestates') },
            }),
          };
        },
      },
    },
  },
  {
    path: '/v1/devicestates/:deviceId',
    // A phone's registration is live on its tenant's owner: an unscoped telco user's read (no
    // tenant of its own) goes there too, not only a tenant's (docs/cluster.md, Forwarding).
    place: (req, params, runtime) => {
      const p = requestPrincipal(req);
      return p && (p.tenantId ?? runtime.directory.device(params.deviceId ?? '')?.tenantId);
    },
    verbs: {
      GET: {
        cached: true,
        rules: ['ST:CC', 'ST:TBAM', 'UT:TBAM'],
        doc: readDoc('getDeviceState', 'The registration state of one phone', DeviceStateSchema, {
          params: DeviceParams,
        }),
        handle: (ctx) => {
          const d = ctx.runtime.directory.device(ctx.params.deviceId);
          const t = ctx.principal.tenantId;
          if (!d || (t !== undefined && d.tenantId !== t)) {
            throw notFound('DEVICE_NOT_FOUND', `No device ${ctx.params.deviceId}.`, [
              { type: 'deviceId', value: ctx.params.deviceId },
            ]);
          }
          return { entity: deviceStateEntity(live(ctx)(d)) };
        },
      },
    },
  },
];
