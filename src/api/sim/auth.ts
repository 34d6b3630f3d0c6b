import type { FastifyInstance } from 'fastify';
import { forbidden } from '../../core/errors.js';
import type { Principal } from '../../core/permissions.js';
import { type Authenticator, isTelcoAdmin, parseBasic, UnauthorizedError } from '../auth/index.js';
import { notePrincipal } from '../auth/request-principal.js';

/**
 * The simulator is for the provider's administrators: HTTP Basic of an unscoped telco user who
 * holds SystemManagement or TenantBasicOrAdvanceManagement. Credentials go through the shared
 * authenticator (same cache and lock-out as the voice API).
 */
export function requireTelcoAdmin(app: FastifyInstance, auth: Authenticator): void {
  app.addHook('onRequest', async (req) => {
    const creds = parseBasic(req.headers.authorization);
    if (!creds)
      throw new UnauthorizedError('The simulator needs HTTP Basic credentials of a telco administrator.');
    const principal = await auth.authenticate(creds.username, creds.secret, req.ip);
    notePrincipal(req, principal);
    if (!mayDriveSimulator(principal)) {
      throw forbidden('FORBIDDEN', 'The simulator needs an unscoped telco user with SM or TBAM.');
    }
  });
}

export function mayDriveSimulator(p: Principal): boolean {
  return isTelcoAdmin(p);
}
