import { DomainError } from '../../core/errors.js';

export class UnauthorizedError extends DomainError {
  constructor(message = 'The credentials are not valid.') {
    super('unauthorized', 'UNAUTHORIZED', message);
  }
}

/** 403 LOCKED_OUT: the (principal, IP) pair is locked; `retryAfterSeconds` feeds `Retry-After`. */
export class LockedOutError extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('locked', 'LOCKED_OUT', `Too many failed logins; try again in ${retryAfterSeconds} seconds.`, [
      { type: 'seconds', value: String(retryAfterSeconds) },
    ]);
  }
}
