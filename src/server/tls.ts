import type { SecureContextOptions } from 'node:tls';

/**
 * TLS policy: TLS 1.2 is the floor; for TLS 1.2 only ECDHE suites, none with RC4, MD5, DES, DSS
 * or NULL. (TLS 1.3 suites are all AEAD with ephemeral key exchange.)
 */
export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
  'ECDHE-ECDSA-AES128-SHA256',
  'ECDHE-RSA-AES128-SHA256',
  'ECDHE-ECDSA-AES256-SHA384',
  'ECDHE-RSA-AES256-SHA384',
].join(':');

export function tlsOptions(cert: Buffer, key: Buffer): SecureContextOptions & { honorCipherOrder: boolean } {
  return { cert, key, minVersion: 'TLSv1.2', ciphers: TLS12_CIPHERS, honorCipherOrder: true };
}
