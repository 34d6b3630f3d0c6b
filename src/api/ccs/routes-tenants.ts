import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import type { Tenant } from '../../directory/model.js';
import type { CcRuntime } from './cc-runtime.js';
import { ownTenant, principal, tenantExtension } from './access.js';
import { ccRoute } from './cc-route.js';
import { SuccessAnswerSchema } from './common-schemas.js';
import { badRequest } from './errors.js';
import * as render from './render.js';
import { toBool, toCountText } from './request-values.js';
import {
  AcdListSchema,
  ExtensionListSchema,
  ExtensionUpdateRequestSchema,
  LIMIT_FIELDS,
  PresenceOptionListSchema,
  ProductListSchema,
  RoleListSchema,
  TenantDetailsSchema,
  TenantExtensionParamsSchema,
  TenantListSchema,
  TenantParamsSchema,
  TenantProductRequestSchema,
  TenantUpdateRequestSchema,
  TextCountAnswerSchema,
  TextCountRequestSchema,
  UuidAnswerSchema,
} from './tenant-schemas.js';

// One ccRoute per spec endpoint (as routes-calls.ts): the declarations share a shape, not logic.
const TAGS = ['tenants'];

/** Tenant administration: endpoints 1-14 of the spec. */
export function tenantRoutes(app: FastifyInstance, runtime: CcRuntime) {
  const { directory } = runtime;
  const ADMIN = ['Tenants View', 'Tenant Edit'] as const;
  const visibleTenants = (p: Principal): Tenant[] =>
    p.authority === 'telco'
      ? directory.tenants()
      : directory.tenants().filter((t) => t.tenantId === p.tenantId);
  const rolesOf = (tenantId?: number) =>
    directory.list('role').filter((r) => r.tenantId === undefined || r.tenantId === tenantId);

  // 1, 2
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/products',
    cached: 'directory',
    permissions: ['Tenant Edit'],
    doc: {
      operationId: 'listProducts',
      summary: 'List products (#1)',
      description: 'Permissions: API, Tenant Edit.',
      tags: TAGS,
      ok: { description: 'Every product.', schema: ProductListSchema },
    },
    handler: () => render.list(directory.list('product').map(render.product)),
  });
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/roles',
    cached: 'directory',
    permissions: ['Tenant Edit'],
    doc: {
      operationId: 'listRoles',
      summary: 'List roles (#2)',
      description: "Permissions: API, Tenant Edit. Telco users see every role, others their tenant's.",
      tags: TAGS,
      ok: { description: 'The roles the caller may see.', schema: RoleListSchema },
    },
    handler: (req) => {
      const p = principal(req);
      const roles = p.authority === 'telco' ? directory.list('role') : rolesOf(p.tenantId);
      return render.list(roles.map(render.role));
    },
  });

  // 3, 4, 5
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'listTenants',
      summary: 'List tenants (#3)',
      description: 'Permissions: API, Tenants View or Tenant Edit. Tenant users see only their own tenant.',
      tags: TAGS,
      ok: { description: 'The tenants the caller may see.', schema: TenantListSchema },
    },
    handler: (req) => {
      const p = principal(req);
      return render.list(visibleTenants(p).map((t) => render.tenantItem(directory, t)));
    },
  });
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'getTenant',
      summary: 'View a tenant (#4)',
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      ok: { description: 'The tenant details.', schema: TenantDetailsSchema },
    },
    handler: (_req, { tenant }) => render.tenantDetails(directory, tenant()),
  });
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/roles',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'listTenantRoles',
      summary: "List a tenant's roles (#5)",
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      ok: { description: 'The roles of the tenant and the shared roles.', schema: RoleListSchema },
    },
    handler: (_req, { tenant }) => render.list(rolesOf(tenant().tenantId).map(render.role)),
  });

  // 6: one inner array per kind, each gated by its permission (docs/decisions.md §1.7).
  const ACD_VIEW = ['Voice IQs View', 'Voice OQs View', 'Conditional Routes View', 'VRQs View'] as const;
  const acds = (p: Principal, t: Tenant) => {
    const has = (x: Principal['ccPermissions'][number]) => p.ccPermissions.includes(x);
    const items = [
      has('Voice IQs View')
        ? directory
            .extensions(t.tenantId)
            .filter((e) => e.type === 'acdExt')
            .map((e) => render.acdItem(t, e))
        : [],
      has('Voice OQs View')
        ? directory.outboundQueues(t.tenantId).map((q) => render.outboundQueueItem(t, q))
        : [],
      [],
      [],
    ];
    return { success: true, total: items.reduce((n, a) => n + a.length, 0), items };
  };
  const acdDoc = {
    description:
      'Permissions: API and one of Voice IQs View, Voice OQs View, Conditional Routes View, VRQs View. ' +
      'One inner array per kind (`voice_queues`, `voice_oqs`, conditional routes, VRQs), each empty ' +
      'without its permission. Outbound queue uuids for `dial` are found here.',
    tags: TAGS,
    ok: { description: 'The queues, grouped by kind.', schema: AcdListSchema },
  };
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/acds',
    cached: 'directory',
    permissions: ACD_VIEW,
    doc: { operationId: 'listAcds', summary: "List the caller's tenant's ACDs (#6)", ...acdDoc },
    handler: (req) => {
      const p = principal(req);
      return acds(p, ownTenant(directory, p));
    },
  });
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/acds',
    cached: 'directory',
    permissions: ACD_VIEW,
    doc: {
      operationId: 'listTenantAcds',
      summary: "List a tenant's ACDs (#6)",
      params: TenantParamsSchema,
      ...acdDoc,
    },
    handler: (req, { tenant }) => {
      const p = principal(req);
      return acds(p, tenant());
    },
  });

  // 7, 8
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/presence_options',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'listPresenceOptions',
      summary: "List a tenant's presence options (#7)",
      description: 'Permissions: API, Tenants View or Tenant Edit. The away and sign-out agent states.',
      tags: TAGS,
      params: TenantParamsSchema,
      ok: { description: 'The presence options.', schema: PresenceOptionListSchema },
    },
    handler: (_req, { tenant }) =>
      render.list(directory.presenceOptions(tenant().tenantId).map(render.presenceOption)),
  });
  const extensionList = (t: Tenant) =>
    render.list(directory.extensions(t.tenantId).map(render.extensionItem));
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/extensions',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'listTenantExtensions',
      summary: "List a tenant's extensions (#8, telco users)",
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      ok: { description: 'The extensions.', schema: ExtensionListSchema },
    },
    handler: (_req, { tenant }) => extensionList(tenant()),
  });
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/extensions',
    cached: 'directory',
    permissions: ADMIN,
    doc: {
      operationId: 'listExtensions',
      summary: "List the caller's tenant's extensions (#8, tenant users)",
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      ok: { description: 'The extensions.', schema: ExtensionListSchema },
    },
    handler: (req) => {
      const p = principal(req);
      return extensionList(ownTenant(directory, p));
    },
  });

  // 9, 10
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/text_count',
    permissions: ADMIN,
    doc: {
      operationId: 'getTextCount',
      summary: "Read a tenant's SMS/MMS counters (#9)",
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      ok: { description: 'The counters.', schema: TextCountAnswerSchema },
    },
    cached: 'texts',
    handler: async (_req, { tenant }) => {
      const t = tenant();
      return {
        success: true,
        items: render.textCount(t, await runtime.contactCenter.textCounts(t.tenantId)),
      };
    },
  });
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/tenants/:tenant/text_count',
    permissions: ADMIN,
    doc: {
      operationId: 'resetTextCount',
      summary: "Reset a tenant's SMS/MMS counters (#10)",
      description: 'Permissions: API, Tenants View or Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      body: TextCountRequestSchema,
      ok: { description: 'The counters are zero.', schema: SuccessAnswerSchema },
    },
    handler: async (_req, { tenant }) => {
      await runtime.contactCenter.resetTextCounts(tenant().tenantId);
      return { success: true };
    },
  });

  const touched = (t: Tenant, p: Principal): Tenant => ({
    ...t,
    cc: {
      ...t.cc,
      modifiedOn: runtime.clock.now(),
      modifiedBy: [...t.cc.modifiedBy.filter((u) => u !== p.username), p.username],
    },
  });

  // 11, 12
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/tenants/:tenant',
    permissions: ['Tenant Edit'],
    doc: {
      operationId: 'changeTenantProducts',
      summary: "Add or delete one of a tenant's products (#11, #12)",
      description:
        'Permissions: API, Tenant Edit. Adding a product the tenant has changes nothing; deleting one ' +
        'it does not have, or naming an unknown product, answers 400.',
      tags: TAGS,
      params: TenantParamsSchema,
      body: TenantProductRequestSchema,
      ok: { description: 'Done; `uuid` is the product uuid.', schema: UuidAnswerSchema },
    },
    handler: async (req, { tenant, body }) => {
      const p = principal(req);
      const t = tenant();
      const productId = body.product;
      if (!directory.get('product', productId)) throw badRequest('Unknown product');
      const has = t.cc.productIds.includes(productId);
      if (body.request === 'delete_product' && !has) {
        throw badRequest('Product is not assigned to the tenant');
      }
      const next = touched(t, p);
      next.cc.productIds =
        body.request === 'add_product'
          ? has
            ? t.cc.productIds
            : [...t.cc.productIds, productId]
          : t.cc.productIds.filter((id) => id !== productId);
      await directory.put('tenant', next);
      return { success: true, uuid: productId };
    },
  });

  // 13
  ccRoute(app, runtime, {
    method: 'PUT',
    url: '/api/tenants/:tenant',
    permissions: ['Tenant Edit'],
    doc: {
      operationId: 'updateTenant',
      summary: "Update a tenant's limits and licenses (#13)",
      description: 'Permissions: API, Tenant Edit.',
      tags: TAGS,
      params: TenantParamsSchema,
      body: TenantUpdateRequestSchema,
      ok: { description: 'Saved; `uuid` is the tenant uuid.', schema: UuidAnswerSchema },
    },
    handler: async (req, { tenant, body }) => {
      const p = principal(req);
      const t = tenant();
      const next = touched(t, p);
      next.cc.limits = { ...t.cc.limits };
      for (const f of LIMIT_FIELDS) {
        const v = body[f];
        if (v !== undefined) next.cc.limits[f] = toCountText(v);
      }
      if (body.product_name !== undefined) next.cc.productName = body.product_name;
      if (body.agent_billing) next.cc.agentBilling = body.agent_billing;
      await directory.put('tenant', next);
      return { success: true, uuid: t.cc.uuid };
    },
  });

  // 14
  ccRoute(app, runtime, {
    method: 'PUT',
    url: '/api/tenants/:tenant/extensions/:ext',
    permissions: ['Tenant Edit'],
    doc: {
      operationId: 'updateExtension',
      summary: "Update an extension's agent settings (#14)",
      description: 'Permissions: API, Tenant Edit. Only user extensions have agent settings (400 otherwise).',
      tags: TAGS,
      params: TenantExtensionParamsSchema,
      body: ExtensionUpdateRequestSchema,
      ok: { description: 'Saved.', schema: SuccessAnswerSchema },
    },
    handler: async (req, { params, tenant, body }) => {
      const t = tenant();
      const e = tenantExtension(directory, t, params.ext!);
      if (e.type !== 'userExt') throw badRequest('Only user extensions have agent settings');
      const agent = {
        ...(e.agent ?? {
          isAgent: false,
          recordingType: 'None',
          monitor: false,
          maxChats: 0,
          multimediaEnabled: false,
        }),
      };
      if (body.is_agent !== undefined) agent.isAgent = toBool(body.is_agent);
      if (body.recording_type !== undefined) agent.recordingType = body.recording_type;
      if (body.monitor !== undefined) agent.monitor = toBool(body.monitor);
      if (body.max_chats !== undefined) agent.maxChats = Number(toCountText(body.max_chats));
      if (body.is_multimedia_enabled !== undefined)
        agent.multimediaEnabled = toBool(body.is_multimedia_enabled);
      await directory.put('extension', { ...e, agent });
      return { success: true };
    },
  });
}
