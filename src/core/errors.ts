/** Typed domain errors. API adapters map `kind` to a status code and wire shape. */
export type ErrorKind =
  | 'invalid' // bad input: 400
  | 'unauthorized' // bad credentials: 401
  | 'forbidden' // authority: 403
  | 'notFound' // unknown resource: 404
  | 'conflict' // state conflict: 409
  | 'locked' // lock-out: 403 LOCKED_OUT
  | 'unavailable'; // busy: 503

export interface ErrorParameter {
  /** A value of the `parameterType` enum. */
  type: string;
  value: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    /** Stable machine-readable code, e.g. CALL_NOT_RINGING. */
    readonly code: string,
    message: string,
    readonly parameters: ErrorParameter[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (code: string, message: string, parameters?: ErrorParameter[]) =>
  new DomainError('invalid', code, message, parameters);
export const notFound = (code: string, message: string, parameters?: ErrorParameter[]) =>
  new DomainError('notFound', code, message, parameters);
export const conflict = (code: string, message: string, parameters?: ErrorParameter[]) =>
  new DomainError('conflict', code, message, parameters);
export const forbidden = (code: string, message: string, parameters?: ErrorParameter[]) =>
  new DomainError('forbidden', code, message, parameters);
/** Not possible now, worth retrying: every API answers 503 with `Retry-After` (UNAVAILABLE_RETRY_S). */
export const unavailable = (code: string, message: string) => new DomainError('unavailable', code, message);
export const UNAVAILABLE_RETRY_S = 1;

export function isDomainError(e: unknown): e is DomainError {
  return e instanceof DomainError;
}
