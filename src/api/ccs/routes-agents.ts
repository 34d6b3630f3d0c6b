import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../../core/permissions.js';
import type { Extension } from '../../directory/model.js';
import { trueWithin } from '../route-core/kept-window.js';
import type { CcRuntime } from './cc-runtime.js';
import { ownTenant, principal, requireActOn, requirePermission, tenantExtension } from './access.js';
import {
  AgentStateAnswerSchema,
  DialAnswerSchema,
  ExtensionRequestSchema,
  UpdateAgentStateRequestSchema,
} from './agent-schemas.js';
import { ccRoute } from './cc-route.js';
import { SuccessAnswerSchema } from './common-schemas.js';
import { forbiddenError } from './errors.js';
import * as render from './render.js';
import { TenantExtensionParamsSchema } from './tenant-schemas.js';

const TAGS = ['agents'];
const STATE_RULE =
  "`name` is `Ready` or the name of one of the tenant's away or sign-out presence options; a sign-out " +
  'state signs the agent out of every queue.';

/** Agent state (15-18) and click to call (28). */
export function agentRoutes(app: FastifyInstance, runtime: CcRuntime) {
  const { directory, contactCenter } = runtime;

  const updateAgentState = (p: Principal, e: Extension, name: string) => {
    requirePermission(p, 'Agent Control');
    requireActOn(p, e);
    contactCenter.setAgentState(e.tenantId, e.ext, name);
    return { success: true };
  };

  // 15
  ccRoute(app, runtime, {
    method: 'GET',
    url: '/api/tenants/:tenant/extensions/:ext/agent_state',
    permissions: ['Agent Control'],
    doc: {
      operationId: 'getAgentState',
      summary: "Read an agent's state (#15)",
      description:
        'Permissions: API, Agent Control. Agents read their own state; tenant admins and telco users any ' +
        "agent's. 400 when the extension is not an agent.",
      tags: TAGS,
      params: TenantExtensionParamsSchema,
      ok: { description: 'The agent state.', schema: AgentStateAnswerSchema },
    },
    // Kept only within the second its durations read the same in (cc-read-cache.ts).
    cached: 'agents',
    handler: (req, { params, tenant }) => {
      const p = principal(req);
      const e = tenantExtension(directory, tenant(), params.ext!);
      requireActOn(p, e);
      const s = contactCenter.agentState(e.tenantId, e.ext);
      const now = runtime.clock.now();
      // Object.assign, not a spread: V8 copies a spread into a literal property by property on
      // its slow path, a visible share of this GET in the request-path profile.
      const answer = Object.assign({ success: true }, render.agentState(s, directory, now));
      return trueWithin(answer, render.agentStateSteady(s, now));
    },
  });

  // 16 and 28: the POST on the extension path is selected by `request`.
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/tenants/:tenant/extensions/:ext',
    // Either request's permission; the handler checks the one its request needs.
    permissions: ['Agent Control', 'Call Control'],
    doc: {
      operationId: 'changeAgentStateOrDial',
      summary: "Change an agent's state (#16) or place an outbound call (#28)",
      description:
        `\`updateAgentState\` (#16): permissions API, Agent Control. ${STATE_RULE}\n\n` +
        '`dial` (#28): permissions API, Call Control; tenant-level users on their own tenant. Calls ' +
        '`target` from the extension through the outbound queue, which gives the caller id.',
      tags: TAGS,
      params: TenantExtensionParamsSchema,
      body: ExtensionRequestSchema,
      ok: {
        description: 'Done; `dial` also answers the new call id.',
        schema: Type.Union([SuccessAnswerSchema, DialAnswerSchema]),
      },
    },
    handler: async (req, { params, tenant, body }) => {
      const p = principal(req);
      if (body.request === 'updateAgentState') {
        requirePermission(p, 'Agent Control');
        const e = tenantExtension(directory, tenant(), params.ext!);
        return updateAgentState(p, e, body.name);
      }
      requirePermission(p, 'Call Control');
      // Tenant-level users on their own tenant (docs/decisions.md §1.7).
      if (p.authority === 'telco') throw forbiddenError();
      const t = tenant();
      const e = tenantExtension(directory, t, params.ext!);
      requireActOn(p, e);
      const call = contactCenter.dial(t.tenantId, e.ext, body.target, body.outbound_queue_uuid);
      return { success: true, call_id: call.smdrCallId };
    },
  });

  // 17: the caller's own state.
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/agent_state',
    permissions: ['Agent Control'],
    doc: {
      operationId: 'changeOwnAgentState',
      summary: "Change the caller's own agent state (#17)",
      description: `Permissions: API, Agent Control. ${STATE_RULE}`,
      tags: TAGS,
      body: UpdateAgentStateRequestSchema,
      ok: { description: 'The state changed.', schema: SuccessAnswerSchema },
    },
    handler: async (req, { body }) => {
      const p = principal(req);
      const t = ownTenant(directory, p);
      const e = p.ext ? directory.extension(t.tenantId, p.ext) : undefined;
      if (!e) throw forbiddenError();
      return updateAgentState(p, e, body.name);
    },
  });

  // 18: a tenant admin on an agent of the tenant.
  ccRoute(app, runtime, {
    method: 'POST',
    url: '/api/extensions/:ext',
    permissions: ['Agent Control'],
    doc: {
      operationId: 'changeAgentState',
      summary: "Change an agent's state as tenant admin (#18)",
      description: `Permissions: API, Agent Control. ${STATE_RULE}`,
      tags: TAGS,
      params: Type.Object({ ext: Type.String({ description: 'The extension uuid.' }) }),
      body: UpdateAgentStateRequestSchema,
      ok: { description: 'The state changed.', schema: SuccessAnswerSchema },
    },
    handler: async (req, { params, body }) => {
      const p = principal(req);
      const e = tenantExtension(directory, ownTenant(directory, p), params.ext!);
      return updateAgentState(p, e, body.name);
    },
  });
}
