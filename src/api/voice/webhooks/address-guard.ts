import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/**
 * The SSRF guard of webhook deliveries: a target's host is resolved first, and the request is
 * sent to the address that was checked (never resolved a second time), so a name that resolves
 * to a private, loopback or link-local address is refused unless the operator allowed those.
 */
const FORBIDDEN = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  FORBIDDEN.addSubnet(net, bits, 'ipv6');

/** Whether `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return FORBIDDEN.check(address, 'ipv4');
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
  return FORBIDDEN.check(address, 'ipv6');
}

export class RefusedAddress extends Error {}

/** The address to connect to for `host`: the first that resolves, checked unless allowed. */
export async function resolveTarget(
  host: string,
  allowPrivate: boolean,
): Promise<{ address: string; family: number }> {
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  const all = isIP(bare)
    ? [{ address: bare, family: isIP(bare) }]
    : await lookup(bare, { all: true, verbatim: true });
  if (all.length === 0) throw new RefusedAddress(`${host} does not resolve`);
  // Every address the name resolves to must be allowed: a resolver may rotate between them.
  if (!allowPrivate && all.some((a) => isForbiddenAddress(a.address)))
    throw new RefusedAddress(`${host} resolves to a private, loopback or link-local address`);
  return all[0];
}
