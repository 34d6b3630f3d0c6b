import { createHmac, randomBytes } from 'node:crypto';

/** A new secret: `whsec_` and 32 random bytes in base64 (used as given, as the HMAC key). */
export const newSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed
 * with the secret's UTF-8 bytes exactly as registered (docs/events.md has the receiver's side).
 */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}
