import {
  CcApiError,
  ConnectRefusedError,
  LinkNotOfferedError,
  UnexpectedResponseError,
  VoiceApiError,
} from '../errors.js';
import { UpgradeRefusedError } from './frame-channel.js';
import type { Verdict } from './reconnector.js';

/**
 * Whether a failed (re)connect attempt is worth repeating. Network failures, time-outs, 5xx and
 * the two "not now" answers (429 too many sockets of this client, 503 busy) are; 401 and 403 are
 * not: each retry with bad credentials counts toward the lock-out (3 failures lock for 1 hour).
 */
export function judgeFailure(error: unknown): Verdict {
  let status: number | undefined;
  let retryAfter: number | undefined;
  if (error instanceof UpgradeRefusedError) [status, retryAfter] = [error.status, error.retryAfterSeconds];
  else if (error instanceof VoiceApiError || error instanceof CcApiError) {
    [status, retryAfter] = [error.status, error.retryAfterSeconds];
  } else if (error instanceof UnexpectedResponseError) status = error.status;
  else if (error instanceof LinkNotOfferedError) return { retry: false };
  else if (error instanceof ConnectRefusedError) return { retry: error.retryable };
  if (status === undefined) return { retry: true };
  if (status === 429 || status === 503 || status === 408 || status >= 500) {
    return { retry: true, minDelayMs: retryAfter !== undefined ? retryAfter * 1000 : undefined };
  }
  return { retry: false };
}
