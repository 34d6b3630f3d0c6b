import type { Principal } from '../../core/permissions.js';

/**
 * The principal a request was authenticated as, whichever API authenticated it, kept on the
 * request object itself (a WeakMap of short-lived requests costs GC work). The access log
 * names it (src/server/request-logger.ts).
 */
export const REQUEST_PRINCIPAL = Symbol('request principal');
type Carrier = { [REQUEST_PRINCIPAL]?: Principal };

declare module 'fastify' {
  interface FastifyRequest {
    /** Decorated on every request by the server (src/server/app.ts), so no request changes shape. */
    [REQUEST_PRINCIPAL]?: Principal;
  }
}

export function notePrincipal(req: object, principal: Principal): void {
  (req as Carrier)[REQUEST_PRINCIPAL] = principal;
}

export function requestPrincipal(req: object): Principal | undefined {
  return (req as Carrier)[REQUEST_PRINCIPAL];
}

/** How logs name a principal: the resolved user, not the spelling the client typed. */
export function principalName(p: Principal): string {
  if (p.ext !== undefined && p.tenantId !== undefined) return `${p.ext}@${p.tenantId}`;
  return p.tenantId !== undefined ? `telco:${p.username}@${p.tenantId}` : `telco:${p.username}`;
}
