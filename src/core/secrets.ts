import * as crypto from 'node:crypto';
import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** scrypt password/PIN hashes: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(secret, salt, KEYLEN, { N, r: R, p: P });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export function verifySecret(secret: string, stored: string | undefined): boolean {
  if (!stored) return false;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const actual = scryptSync(secret, Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * One-shot `crypto.hash` (Node >= 20.12) where there is one: it runs on every authenticated
 * request and costs less than half of a Hash object's create, update and digest.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'base64url') => string })
  .hash;

/** Fast one-way digest for lookup keys (token ids, credential cache keys). Not for passwords. */
export const sha256 = oneShot
  ? (s: string): string => oneShot('sha256', s, 'base64url')
  : (s: string): string => createHash('sha256').update(s).digest('base64url');

export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url');
