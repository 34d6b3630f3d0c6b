import type { Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import { accountOf } from '../auth/index.js';

const CACHE_MAX = 10_000;
const byDirectory = new WeakMap<Directory, Map<string, Principal | null>>();

/**
 * The principal behind a token's subject (the username it was issued to). Disabled users and
 * changed roles take effect at once: the answers are kept only until the directory next changes
 * (any change, which the directory reports synchronously), so a request costs a lookup instead of
 * rebuilding the principal. The secret was checked when the token was issued.
 */
export function principalOfSubject(directory: Directory, username: string): Principal | null {
  let known = byDirectory.get(directory);
  if (!known) {
    const fresh = new Map<string, Principal | null>();
    directory.onChange(() => fresh.clear());
    byDirectory.set(directory, (known = fresh));
  }
  const hit = known.get(username);
  if (hit !== undefined) return hit;
  const principal = accountOf(directory, username)?.principal ?? null;
  if (known.size >= CACHE_MAX) known.clear();
  known.set(username, principal);
  return principal;
}
