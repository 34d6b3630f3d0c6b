import { randomUUID } from 'node:crypto';
import { conflict } from '../../../core/errors.js';
import type { CcTenant, Tenant } from '../../../directory/model.js';
import { DEFAULT_CC_LIMITS, PROVISIONING_KINDS } from '../../../directory/provisioning-model.js';
import { type Backing, type Row, type Scope, clean } from './backing.js';

/** Tenants are the directory's `tenant` entities (the ones auth and the switch read). */
function toRow(t: Tenant): Row {
  return {
    id: String(t.tenantId),
    props: {
      tenantId: t.tenantId,
      name: t.name,
      active: t.active,
      did: t.did,
      webLoginUrl: t.webLoginUrl,
      emergencyNumbers: t.emergencyNumbers ?? [],
      parkRecallSeconds: t.parkRecallMs === undefined ? undefined : t.parkRecallMs / 1000,
      timezone: t.cc.timezone,
    },
  };
}

function apply(t: Tenant, patch: Record<string, unknown>): void {
  if (typeof patch.name === 'string') {
    t.name = patch.name;
    t.cc.name = patch.name;
  }
  if (typeof patch.active === 'boolean') {
    t.active = patch.active;
    t.cc.status = patch.active ? 'enable' : 'disable';
  }
  if (patch.did !== undefined) t.did = (patch.did as string | null) ?? undefined;
  if (patch.webLoginUrl !== undefined) t.webLoginUrl = (patch.webLoginUrl as string | null) ?? undefined;
  if (Array.isArray(patch.emergencyNumbers)) t.emergencyNumbers = patch.emergencyNumbers as string[];
  if (typeof patch.parkRecallSeconds === 'number') t.parkRecallMs = patch.parkRecallSeconds * 1000;
  if (typeof patch.timezone === 'string') t.cc.timezone = patch.timezone;
}

function newCcTenant(s: Scope, tenantId: number, name: string): CcTenant {
  const now = s.runtime.clock.now();
  return {
    uuid: randomUUID(),
    sid: `CC${tenantId}`,
    name,
    status: 'enable',
    timezone: 'UTC',
    productIds: s.runtime.directory.list('product').map((p) => p.id),
    productName: 'Voice',
    agentBilling: 'Named',
    limits: { ...DEFAULT_CC_LIMITS },
    createdOn: now,
    modifiedOn: now,
    createdBy: s.principal.username,
    modifiedBy: [],
  };
}

/** Typed kinds a tenant owns besides its extensions. */
const TENANT_KINDS = ['did', 'parkRange', 'site', 'device', 'presenceOption', 'outboundQueue'] as const;

export const tenantBacking: Backing = {
  list: (s) => s.runtime.directory.tenants().map(toRow),
  get: (s, id) => {
    const t = /^\d+$/.test(id) ? s.runtime.directory.tenant(Number(id)) : undefined;
    return t && toRow(t);
  },
  async create(s, fields) {
    const dir = s.runtime.directory;
    const tenantId =
      typeof fields.tenantId === 'number'
        ? fields.tenantId
        : Math.max(1000, ...dir.idsEverUsed('tenant').map(Number).filter(Number.isInteger)) + 1;
    if (dir.tenant(tenantId)) {
      throw conflict('TENANT_EXISTS', `Tenant ${tenantId} already exists.`, [
        { type: 'field', value: 'tenantId' },
      ]);
    }
    checkIdentities(s, fields, tenantId);
    const name = String(fields.name);
    const t: Tenant = {
      id: String(tenantId),
      tenantId,
      name,
      active: true,
      cc: newCcTenant(s, tenantId, name),
    };
    apply(t, fields);
    await dir.put('tenant', clean(t));
    return String(tenantId);
  },
  async update(s, id, patch) {
    const t = structuredClone(s.runtime.directory.tenant(Number(id))!);
    checkIdentities(s, patch, t.tenantId);
    apply(t, patch);
    t.cc.modifiedOn = s.runtime.clock.now();
    await s.runtime.directory.put('tenant', clean(t));
  },
  async remove(s, id) {
    const dir = s.runtime.directory;
    if (dir.extensions(Number(id)).length > 0) {
      throw conflict('TENANT_NOT_EMPTY', `Tenant ${id} still has extensions; deactivate it instead.`, [
        { type: 'tenantId', value: id },
      ]);
    }
    for (const kind of [...TENANT_KINDS, ...PROVISIONING_KINDS])
      for (const e of dir.list(kind, Number(id))) await dir.remove(kind, e.id);
    await dir.remove('tenant', id);
  },
};

/** A main DID and a web login URL each identify one tenant at login. */
function checkIdentities(s: Scope, fields: Record<string, unknown>, tenantId: number): void {
  const dir = s.runtime.directory;
  if (typeof fields.did === 'string') {
    // Under every spelling it is found as: `+1 555…` and `555…` are one DID at login.
    const other = dir.tenantsByDidKeys(fields.did).find((t) => t.tenantId !== tenantId);
    if (other)
      throw conflict('DID_IN_USE', `${fields.did} is another tenant's main DID.`, [
        { type: 'field', value: 'did' },
      ]);
  }
  if (typeof fields.webLoginUrl === 'string') {
    const other = dir.tenantByUrl(fields.webLoginUrl);
    if (other && other.tenantId !== tenantId)
      throw conflict('URL_IN_USE', `${fields.webLoginUrl} is another tenant's login URL.`, [
        { type: 'field', value: 'webLoginUrl' },
      ]);
  }
}
