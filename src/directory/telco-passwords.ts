import { hashSecret, verifySecret } from '../core/secrets.js';
import type { TelcoPasswords } from './demo-world.js';
import type { Directory } from './directory.js';

/**
 * A database seeded before the operator set the telco users' passwords still holds the demo
 * ones: at start, each password the operator set replaces a stored one that differs. Users the
 * operator did not name keep what is stored.
 */
export async function applyTelcoPasswords(directory: Directory, passwords: TelcoPasswords): Promise<void> {
  for (const [id, password] of Object.entries(passwords)) {
    if (!password) continue;
    const user = directory.telcoUser(id);
    if (!user || (await verifySecret(password, user.passwordHash))) continue;
    await directory.put('telcoUser', { ...user, passwordHash: hashSecret(password) });
  }
}
