import { CcApiError, UnexpectedResponseError } from '../errors.js';
import { type HttpAnswer, type HttpTransport, retryAfterSeconds } from '../http/transport.js';

/** The REST base of the contact-center API (spec: `https://{base_url}/6/v2/api/`). */
export const CC_BASE = '/6/v2/api/';

/** Any non-2xx contact-center answer as a CcApiError, whatever its body's `success` says. */
export function ccError(answer: HttpAnswer): CcApiError | UnexpectedResponseError {
  const body = answer.body as { reason?: unknown; success?: unknown } | undefined;
  if (typeof body?.reason !== 'string') {
    return new UnexpectedResponseError(answer.method, answer.url, answer.status, answer.text);
  }
  const success = typeof body.success === 'boolean' ? body.success : undefined;
  return new CcApiError(
    answer.method,
    answer.url,
    answer.status,
    body.reason,
    success,
    retryAfterSeconds(answer.headers),
  );
}

/** Sends a contact-center request: every request carries `Content-Type: application/json` (spec). */
export async function ccRequest(
  transport: HttpTransport,
  method: string,
  path: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<HttpAnswer> {
  return transport.request({
    method,
    url: CC_BASE + path.replace(/^\/+/, ''),
    headers: { 'content-type': 'application/json', ...headers },
    json,
  });
}
