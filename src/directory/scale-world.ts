import { DEMO, demoUuid } from './demo-ids.js';
import { demoMacAddress, demoWorld, type TelcoPasswords } from './demo-world.js';
import type { GenericEntity, StoredEntity } from './model.js';
import { extensionKey } from './model.js';

/**
 * The scale world (`seed --scale N`, issue 19): the demo world N times. The demo tenants stay as
 * they are; copy c = 2..N of each is the same tenant (users, phones, groups, ACDs, agents, DIDs,
 * presence options, outbound queue, provisioned profiles) under a new tenant id, with ids, uuids,
 * MAC addresses, DIDs and web-login names of its own, so nothing collides with the demo or with
 * another copy. Telco users, products, roles and system settings are the demo's, once.
 */

/** Tenants the demo world has; each is copied. */
export const DEMO_TENANT_IDS = [DEMO.acme.tenantId, DEMO.globex.tenantId] as const;

/** Beyond this the tenant ids (4 digits) and DIDs of the copies would run into other numbers. */
export const MAX_SCALE = 1000;

/** The tenant id of copy `c` (1 = the demo tenant itself) of a demo tenant: 1001, 1003, 1005, ... */
export function scaledTenantId(demoTenantId: number, c: number): number {
  return demoTenantId + (c - 1) * DEMO_TENANT_IDS.length;
}

/** A DID of a demo tenant, for copy tenant `t`: `+15555550150` -> `+15551003150`. */
export const scaledNumber = (demoNumber: string, t: number) => `+1555${t}${demoNumber.slice(-3)}`;

export function scaleWorld(n: number, telco: TelcoPasswords = {}): StoredEntity[] {
  if (!Number.isInteger(n) || n < 1 || n > MAX_SCALE)
    throw new RangeError(`scale must be a whole number from 1 to ${MAX_SCALE}`);
  const demo = demoWorld(telco);
  const out = [...demo];
  const own = demo.filter((e) => DEMO_TENANT_IDS.includes(e.tenantId as 1001));
  const maxIds = maxNumericIds(own);
  for (let c = 2; c <= n; c++) {
    for (const e of own) {
      const t = scaledTenantId(e.tenantId!, c);
      const data = copyOf(e, t, c, maxIds);
      out.push({ kind: e.kind, id: data.id, tenantId: t, data });
    }
  }
  return out;
}

/** Per kind, the largest numeric id among the demo tenants' records (ids counted up by the server). */
function maxNumericIds(entities: StoredEntity[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const e of entities) if (/^\d+$/.test(e.id)) m.set(e.kind, Math.max(m.get(e.kind) ?? 0, Number(e.id)));
  return m;
}

type Rule = (d: GenericEntity, ctx: { s: number; t: number; c: number; maxId: number }) => GenericEntity;

/** `site-1001-hq` -> `site-1003-hq`: the tenant id inside a string id. */
const swap = (id: string, s: number, t: number) => id.replace(String(s), String(t));
/** A demo uuid numbered `tenantId * 100 + n` (presence options, outbound queues). */
const rebase = (kind: 'presenceOption' | 'outboundQueue', id: string, t: number) =>
  demoUuid(kind, t * 100 + (Number(id.slice(-12)) % 100));
/** Numeric ids go on after the demo's: copy c of record 1 of a kind that has at most m is 1 + (c-1)m. */
const renumber: Rule = (d, { c, maxId }) => ({ ...d, id: String(Number(d.id) + (c - 1) * maxId) });

const RULES: Record<string, Rule> = {
  tenant: (d, { t, c }) => {
    const cc = d.cc as Record<string, unknown>;
    const name = `${d.name as string} ${c}`;
    const url = d.webLoginUrl as string | undefined;
    return {
      ...d,
      id: String(t),
      name,
      ...(d.did ? { did: scaledNumber(d.did as string, t) } : {}),
      ...(url ? { webLoginUrl: url.replace(/^([^.]+)/, `$1-${c}`) } : {}),
      cc: { ...cc, uuid: demoUuid('tenant', t), sid: `CC${t}`, name },
    };
  },
  site: (d, { s, t }) => ({ ...d, id: swap(d.id, s, t) }),
  extension: (d, { s, t }) => {
    const ext = d.ext as string;
    return {
      ...d,
      id: extensionKey(t, ext),
      uuid: DEMO.extensionUuid(t, ext),
      ...(d.siteId ? { siteId: swap(d.siteId as string, s, t) } : {}),
      ...(d.clickToCallDeviceId ? { clickToCallDeviceId: DEMO.deviceId(t, ext) } : {}),
    };
  },
  device: (d, { t }) => ({
    ...d,
    id: DEMO.deviceId(t, d.ownerExt as string),
    macAddress: demoMacAddress(t, d.ownerExt as string),
  }),
  did: (d, { s, t }) => ({ ...d, id: swap(d.id, s, t), number: scaledNumber(d.number as string, t) }),
  parkRange: (d, { s, t }) => ({ ...d, id: swap(d.id, s, t) }),
  presenceOption: (d, { t }) => ({ ...d, id: rebase('presenceOption', d.id, t) }),
  outboundQueue: (d, { t }) => ({
    ...d,
    id: rebase('outboundQueue', d.id, t),
    callerId: scaledNumber(d.callerId as string, t),
  }),
  businessHoursProfile: renumber,
  keyProfile: renumber,
  callPermissionProfile: renumber,
  externalContact: renumber,
};

function copyOf(e: StoredEntity, t: number, c: number, maxIds: Map<string, number>): GenericEntity {
  const rule = RULES[e.kind];
  // A kind added to the demo tenants must say how it is copied (ids that must not collide).
  if (!rule) throw new Error(`scale world: no rule to copy a ${e.kind} of a demo tenant`);
  const s = e.tenantId!;
  const copy = rule(structuredClone(e.data), { s, t, c, maxId: maxIds.get(e.kind) ?? 0 });
  return { ...copy, tenantId: t };
}
