import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import { RECORDING_TYPES, type Tenant } from '../../directory/model.js';
import type { Runtime } from '../../server/runtime.js';
import { ownTenant, pathTenant, principal, requirePermission, tenantExtension } from './access.js';
import { badRequest } from './errors.js';
import * as render from './render.js';
import { body, boolText, numericText, oneOf, requiredText, text } from './validate.js';

type TenantParams = { Params: { tenant: string } };

const LIMIT_FIELDS = [
  'rec_extn_limit',
  'monitor_ext_limit',
  'max_queues',
  'max_agents',
  'group_agent_limit',
  'chat_licenses',
  'multimedia_licenses',
] as const;

/** Tenant administration: endpoints 1-14 of the spec. */
export function tenantRoutes(app: FastifyInstance, runtime: Runtime) {
  const { directory } = runtime;
  const admin = (p: Principal) => requirePermission(p, 'Tenants View', 'Tenant Edit');
  const visibleTenants = (p: Principal): Tenant[] =>
    p.authority === 'telco'
      ? directory.tenants()
      : directory.tenants().filter((t) => t.tenantId === p.tenantId);
  const rolesOf = (tenantId?: number) =>
    directory.list('role').filter((r) => r.tenantId === undefined || r.tenantId === tenantId);

  // 1, 2
  app.get('/api/products', async (req) => {
    requirePermission(principal(req), 'Tenant Edit');
    return render.list(directory.list('product').map(render.product));
  });
  app.get('/api/roles', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Tenant Edit');
    const roles = p.authority === 'telco' ? directory.list('role') : rolesOf(p.tenantId);
    return render.list(roles.map(render.role));
  });

  // 3, 4, 5
  app.get('/api/tenants', async (req) => {
    const p = principal(req);
    admin(p);
    return render.list(visibleTenants(p).map((t) => render.tenantItem(directory, t)));
  });
  app.get<TenantParams>('/api/tenants/:tenant', async (req) => {
    const p = principal(req);
    admin(p);
    return render.tenantDetails(directory, pathTenant(directory, p, req.params.tenant));
  });
  app.get<TenantParams>('/api/tenants/:tenant/roles', async (req) => {
    const p = principal(req);
    admin(p);
    const t = pathTenant(directory, p, req.params.tenant);
    return render.list(rolesOf(t.tenantId).map(render.role));
  });

  // 6: one inner array per kind, each gated by its permission (DESIGN §3.7).
  const requireAcdView = (p: Principal) =>
    requirePermission(p, 'Voice IQs View', 'Voice OQs View', 'Conditional Routes View', 'VRQs View');
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
  app.get('/api/acds', async (req) => {
    const p = principal(req);
    requireAcdView(p);
    return acds(p, ownTenant(directory, p));
  });
  app.get<TenantParams>('/api/tenants/:tenant/acds', async (req) => {
    const p = principal(req);
    requireAcdView(p);
    return acds(p, pathTenant(directory, p, req.params.tenant));
  });

  // 7, 8
  app.get<TenantParams>('/api/tenants/:tenant/presence_options', async (req) => {
    const p = principal(req);
    admin(p);
    const t = pathTenant(directory, p, req.params.tenant);
    return render.list(directory.presenceOptions(t.tenantId).map(render.presenceOption));
  });
  const extensionList = (t: Tenant) =>
    render.list(directory.extensions(t.tenantId).map(render.extensionItem));
  app.get<TenantParams>('/api/tenants/:tenant/extensions', async (req) => {
    const p = principal(req);
    admin(p);
    return extensionList(pathTenant(directory, p, req.params.tenant));
  });
  app.get('/api/extensions', async (req) => {
    const p = principal(req);
    admin(p);
    return extensionList(ownTenant(directory, p));
  });

  // 9, 10
  app.get<TenantParams>('/api/tenants/:tenant/text_count', async (req) => {
    const p = principal(req);
    admin(p);
    const t = pathTenant(directory, p, req.params.tenant);
    return { success: true, items: render.textCount(t, await runtime.contactCenter.textCounts(t.tenantId)) };
  });
  app.post<TenantParams>('/api/tenants/:tenant/text_count', async (req) => {
    const p = principal(req);
    admin(p);
    const t = pathTenant(directory, p, req.params.tenant);
    if (body(req.body).request !== 'reset_counter') throw badRequest('request must be reset_counter');
    await runtime.contactCenter.resetTextCounts(t.tenantId);
    return { success: true };
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
  app.post<TenantParams>('/api/tenants/:tenant', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Tenant Edit');
    const t = pathTenant(directory, p, req.params.tenant);
    const b = body(req.body);
    const request = b.request;
    if (request !== 'add_product' && request !== 'delete_product') {
      throw badRequest('request must be add_product or delete_product');
    }
    const productId = requiredText(b, 'product');
    if (!directory.get('product', productId)) throw badRequest('Unknown product');
    const has = t.cc.productIds.includes(productId);
    if (request === 'delete_product' && !has) throw badRequest('Product is not assigned to the tenant');
    const next = touched(t, p);
    next.cc.productIds =
      request === 'add_product'
        ? has
          ? t.cc.productIds
          : [...t.cc.productIds, productId]
        : t.cc.productIds.filter((id) => id !== productId);
    await directory.put('tenant', next);
    return { success: true, uuid: productId };
  });

  // 13
  app.put<TenantParams>('/api/tenants/:tenant', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Tenant Edit');
    const t = pathTenant(directory, p, req.params.tenant);
    const b = body(req.body);
    const next = touched(t, p);
    next.cc.limits = { ...t.cc.limits };
    for (const f of LIMIT_FIELDS) {
      const v = numericText(b, f);
      if (v !== undefined) next.cc.limits[f] = v;
    }
    const productName = text(b, 'product_name');
    if (productName !== undefined) next.cc.productName = productName;
    const billing = oneOf(b, 'agent_billing', ['Named', 'Concurrent'] as const);
    if (billing) next.cc.agentBilling = billing;
    await directory.put('tenant', next);
    return { success: true, uuid: t.cc.uuid };
  });

  // 14
  app.put<{ Params: { tenant: string; ext: string } }>(
    '/api/tenants/:tenant/extensions/:ext',
    async (req) => {
      const p = principal(req);
      requirePermission(p, 'Tenant Edit');
      const t = pathTenant(directory, p, req.params.tenant);
      const e = tenantExtension(directory, t, req.params.ext);
      const b = body(req.body);
      const isAgent = boolText(b, 'is_agent');
      const recordingType = oneOf(b, 'recording_type', RECORDING_TYPES);
      const monitor = boolText(b, 'monitor');
      const maxChats = numericText(b, 'max_chats', 0, 6);
      const multimedia = boolText(b, 'is_multimedia_enabled');
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
      if (isAgent !== undefined) agent.isAgent = isAgent;
      if (recordingType !== undefined) agent.recordingType = recordingType;
      if (monitor !== undefined) agent.monitor = monitor;
      if (maxChats !== undefined) agent.maxChats = Number(maxChats);
      if (multimedia !== undefined) agent.multimediaEnabled = multimedia;
      await directory.put('extension', { ...e, agent });
      return { success: true };
    },
  );
}
