import type { ResourceDef } from '../hal/resource.js';

/**
 * Resources of one path may come from two modules (a read-only view and its provisioning verbs):
 * they become one registry row, since a path is registered once. A verb defined twice is a bug.
 */
export function mergeByPath(defs: readonly ResourceDef[]): ResourceDef[] {
  const byPath = new Map<string, ResourceDef>();
  for (const def of defs) {
    const seen = byPath.get(def.path);
    if (!seen) {
      byPath.set(def.path, { ...def, verbs: { ...def.verbs } });
      continue;
    }
    for (const [verb, vd] of Object.entries(def.verbs)) {
      if (!vd) continue;
      if (seen.verbs[verb as keyof ResourceDef['verbs']])
        throw new Error(`${verb} ${def.path} is defined twice`);
      seen.verbs[verb as keyof ResourceDef['verbs']] = vd;
    }
  }
  return [...byPath.values()];
}
