export { type Authenticator, authenticatorFor, createAuthenticator } from './authenticator.js';
export { LockedOutError, UnauthorizedError } from './errors.js';
export { Lockout, type LockoutPolicy } from './lockout.js';
export { type LoginTarget, parseBasic, resolveUsername } from './usernames.js';
export { type Account, accountOf } from './principals.js';
