import { randomUUID } from 'node:crypto';
import { conflict } from '../../../core/errors.js';
import { hashSecret } from '../../../core/secrets.js';
import type { Directory } from '../../../directory/directory.js';
import { type Extension, type ExtensionType, extensionKey } from '../../../directory/model.js';
import { type Backing, type Row, type Scope, clean } from './backing.js';

/**
 * Users, locations, ACDs, call groups and auto attendants are all `extension` entities of the
 * directory, the ones the switch routes to. One backing maps an extension of some types to wire
 * fields and back; the wire id is the extension number.
 */
export interface ExtensionMapping {
  types: readonly ExtensionType[];
  /** The type a create makes. */
  createType?: ExtensionType;
  /** The wire property that also carries the number (besides `extension`), e.g. `acdId`. */
  idField?: string;
  toWire(e: Extension, dir: Directory): Record<string, unknown>;
  /** Applies validated wire fields to the entity (already a copy). */
  apply(e: Extension, patch: Record<string, unknown>): void;
}

/** Wire fields every extension shares. */
export function commonToWire(e: Extension): Record<string, unknown> {
  return {
    extension: e.ext,
    accountId: `${e.ext}@${e.tenantId}`,
    extensionType: e.type,
    name: e.name,
    enabled: e.enabled,
    tenantId: e.tenantId,
  };
}

/** Applies `name` (non-user extensions keep their name in firstName), `enabled`, `pin`, `siteId`. */
export function applyCommon(e: Extension, patch: Record<string, unknown>): void {
  if (typeof patch.name === 'string') {
    e.name = patch.name;
    e.firstName = patch.name;
    e.lastName = '';
  }
  if (typeof patch.enabled === 'boolean') e.enabled = patch.enabled;
  if (typeof patch.pin === 'string') e.pinHash = hashSecret(patch.pin);
  if (patch.siteId !== undefined) e.siteId = (patch.siteId as string | null) ?? undefined;
}

function blankExtension(tenantId: number, ext: string, type: ExtensionType): Extension {
  return {
    id: extensionKey(tenantId, ext),
    tenantId,
    ext,
    type,
    uuid: randomUUID(),
    firstName: '',
    lastName: '',
    name: '',
    admin: false,
    enabled: true,
    dnd: false,
    ringTimeoutMs: 20_000,
    confirmBeforeDial: false,
    ccRoleIds: [],
  };
}

/** Removing an extension also takes it out of groups and ACDs, and removes its phones. */
/** A DID or an auto-attendant choice that routes to the extension: it may not go while they do. */
function routedBy(dir: Directory, tenantId: number, ext: string): string | undefined {
  const did = dir.list('did', tenantId).find((d) => d.targetExt === ext);
  if (did) return `DID ${did.number}`;
  for (const aa of dir.extensions(tenantId)) {
    const actions = [...Object.values(aa.autoAttendant?.menu ?? {}), aa.autoAttendant?.timeoutAction];
    if (actions.some((a) => a?.target === ext)) return `auto attendant ${aa.ext}`;
  }
  return undefined;
}

async function removeExtension(dir: Directory, tenantId: number, ext: string): Promise<void> {
  const by = routedBy(dir, tenantId, ext);
  if (by) {
    throw conflict('IN_USE', `Extension ${ext} is still the target of ${by}.`, [
      { type: 'extension', value: ext },
    ]);
  }
  for (const other of dir.extensions(tenantId)) {
    const inGroup = other.group?.members.includes(ext);
    const inAcd = other.acd?.agents.includes(ext);
    if (!inGroup && !inAcd) continue;
    const copy = structuredClone(other);
    if (copy.group) copy.group.members = copy.group.members.filter((m) => m !== ext);
    if (copy.acd) copy.acd.agents = copy.acd.agents.filter((m) => m !== ext);
    await dir.put('extension', copy);
  }
  for (const d of dir.devicesOf(tenantId, ext)) await dir.remove('device', d.id);
  await dir.remove('extension', extensionKey(tenantId, ext));
}

export function extensionBacking(m: ExtensionMapping): Backing {
  const toRow = (e: Extension, dir: Directory): Row => ({
    id: e.ext,
    props: { ...(m.idField ? { [m.idField]: e.ext } : {}), ...commonToWire(e), ...m.toWire(e, dir) },
  });
  const entity = (s: Scope, id: string) => {
    const e = s.runtime.directory.extension(s.tenantId!, id);
    return e && m.types.includes(e.type) ? e : undefined;
  };
  return {
    list: (s) =>
      s.runtime.directory
        .extensions(s.tenantId!)
        .filter((e) => m.types.includes(e.type))
        .map((e) => toRow(e, s.runtime.directory)),
    get: (s, id) => {
      const e = entity(s, id);
      return e && toRow(e, s.runtime.directory);
    },
    async create(s, fields) {
      const ext = String(fields.extension);
      const dir = s.runtime.directory;
      if (dir.extension(s.tenantId!, ext)) {
        throw conflict('EXTENSION_EXISTS', `Extension ${ext} already exists in tenant ${s.tenantId}.`, [
          { type: 'field', value: 'extension' },
        ]);
      }
      const e = blankExtension(s.tenantId!, ext, m.createType ?? m.types[0]);
      applyCommon(e, fields);
      m.apply(e, fields);
      await dir.put('extension', clean(e));
      return ext;
    },
    async update(s, id, patch) {
      const e = structuredClone(entity(s, id)!);
      applyCommon(e, patch);
      m.apply(e, patch);
      await s.runtime.directory.put('extension', clean(e));
    },
    remove: (s, id) => removeExtension(s.runtime.directory, s.tenantId!, id),
  };
}
