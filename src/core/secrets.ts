import * as crypto from 'node:crypto';
import { createHash, randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';

/** scrypt password/PIN hashes: `scrypt$N$r$p$<salt b64>$<hash b64>`. */
const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

const stored = (salt: Buffer, hash: Buffer) =>
  `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${hash.toString('base64')}`;

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return stored(salt, scryptSync(secret, salt, KEYLEN, { N, r: R, p: P }));
}

/**
 * Checks a secret against a stored hash with the asynchronous scrypt: the key derivation runs on
 * libuv's thread pool, never on the event loop. A malformed or missing hash is false.
 */
export function verifySecret(secret: string, hash: string | undefined): Promise<boolean> {
  const parts = hash?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return Promise.resolve(false);
  const [, n, r, p, saltB64, hashB64] = parts;
  const expected = Buffer.from(hashB64, 'base64');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  return new Promise((resolve) =>
    scrypt(secret, Buffer.from(saltB64, 'base64'), expected.length, params, (err, actual) =>
      resolve(!err && actual.length === expected.length && timingSafeEqual(actual, expected)),
    ),
  );
}

let dummy: Promise<string> | undefined;

/**
 * A hash of a random secret with the parameters of every stored hash, made once per process: an
 * unknown user's login is checked against it, so it costs the same key derivation as a wrong PIN.
 */
export function dummySecretHash(): Promise<string> {
  dummy ??= new Promise((resolve, reject) => {
    const salt = randomBytes(16);
    scrypt(randomToken(), salt, KEYLEN, { N, r: R, p: P }, (err, hash) =>
      err ? reject(err) : resolve(stored(salt, hash)),
    );
  });
  return dummy;
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
