import type { Principal } from '../../core/permissions.js';
import type { Directory } from '../../directory/directory.js';
import { accountOf } from '../auth/index.js';

/**
 * The principal behind a token's subject (the username it was issued to), read fresh from the
 * directory on every request so disabled users and changed roles take effect at once. The secret
 * was checked when the token was issued.
 */
export function principalOfSubject(directory: Directory, username: string): Principal | null {
  return accountOf(directory, username)?.principal ?? null;
}
