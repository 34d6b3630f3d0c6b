import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import type { Extension } from '../../directory/model.js';
import type { Runtime } from '../../server/runtime.js';
import {
  ownTenant,
  pathTenant,
  principal,
  requireActOn,
  requirePermission,
  tenantExtension,
} from './access.js';
import { badRequest, forbiddenError } from './errors.js';
import * as render from './render.js';
import { body } from './validate.js';

type ExtParams = { Params: { tenant: string; ext: string } };

/** Agent state (15-18) and click to call (28). */
export function agentRoutes(app: FastifyInstance, runtime: Runtime) {
  const { directory, contactCenter } = runtime;

  const updateAgentState = (p: Principal, e: Extension, raw: unknown) => {
    requirePermission(p, 'Agent Control');
    requireActOn(p, e);
    contactCenter.setAgentState(e.tenantId, e.ext, body(raw).name);
    return { success: true };
  };

  // 15
  app.get<ExtParams>('/api/tenants/:tenant/extensions/:ext/agent_state', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Agent Control');
    const e = tenantExtension(directory, pathTenant(directory, p, req.params.tenant), req.params.ext);
    requireActOn(p, e);
    const s = contactCenter.agentState(e.tenantId, e.ext);
    return { success: true, ...render.agentState(s, directory, runtime.clock.now()) };
  });

  // 16 and 28: the POST on the extension path is selected by `request`.
  app.post<ExtParams>('/api/tenants/:tenant/extensions/:ext', async (req) => {
    const p = principal(req);
    const b = body(req.body);
    if (b.request === 'updateAgentState') {
      requirePermission(p, 'Agent Control');
      const e = tenantExtension(directory, pathTenant(directory, p, req.params.tenant), req.params.ext);
      return updateAgentState(p, e, b);
    }
    if (b.request === 'dial') {
      requirePermission(p, 'Call Control');
      // Tenant-level users on their own tenant (DESIGN §3.7).
      if (p.authority === 'telco') throw forbiddenError();
      const t = pathTenant(directory, p, req.params.tenant);
      const e = tenantExtension(directory, t, req.params.ext);
      requireActOn(p, e);
      const call = contactCenter.dial(t.tenantId, e.ext, b.target, b.outbound_queue_uuid);
      return { success: true, call_id: call.smdrCallId };
    }
    throw badRequest('request must be updateAgentState or dial');
  });

  // 17: the caller's own state.
  app.post('/api/agent_state', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Agent Control');
    const b = body(req.body);
    if (b.request !== 'updateAgentState') throw badRequest('request must be updateAgentState');
    const t = ownTenant(directory, p);
    const e = p.ext ? directory.extension(t.tenantId, p.ext) : undefined;
    if (!e) throw forbiddenError();
    return updateAgentState(p, e, b);
  });

  // 18: a tenant admin on an agent of the tenant.
  app.post<{ Params: { ext: string } }>('/api/extensions/:ext', async (req) => {
    const p = principal(req);
    requirePermission(p, 'Agent Control');
    const b = body(req.body);
    if (b.request !== 'updateAgentState') throw badRequest('request must be updateAgentState');
    const e = tenantExtension(directory, ownTenant(directory, p), req.params.ext);
    return updateAgentState(p, e, b);
  });
}
