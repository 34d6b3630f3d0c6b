export {
  type Authenticator,
  type AuthenticatorOptions,
  authenticatorFor,
  createAuthenticator,
} from './authenticator.js';
export { LockedOutError, UnauthorizedError } from './errors.js';
export { Lockout, type LockoutPolicy, UNKNOWN_PRINCIPAL } from './lockout.js';
export { type LoginTarget, parseBasic, principalIdOf, resolveUsername } from './usernames.js';
export { type Account, accountOf } from './principals.js';
export { isTelcoAdmin, telcoAdminOf } from './telco-admin.js';
