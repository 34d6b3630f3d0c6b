/**
 * Fixed, stable ids of the demo world: the same on every install and after every reset.
 * UUIDs are version-4 shaped with a readable tail: 5b0a<kind>-0000-4000-8000-<number>.
 */
const KIND_CODES = {
  tenant: '0001',
  extension: '0002',
  product: '0003',
  role: '0004',
  presenceOption: '0005',
  outboundQueue: '0006',
  telco: '0007',
  platform: '0008',
  gateway: '0009',
} as const;

export function demoUuid(kind: keyof typeof KIND_CODES, n: number): string {
  return `5b0a${KIND_CODES[kind]}-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

export const DEMO = {
  acme: { tenantId: 1001, ccUuid: demoUuid('tenant', 1001) },
  globex: { tenantId: 1002, ccUuid: demoUuid('tenant', 1002) },
  telcoUuid: demoUuid('telco', 1),
  platformUuid: demoUuid('platform', 1),
  gatewayUuid: demoUuid('gateway', 1),
  roles: {
    tenantAdmin: demoUuid('role', 1),
    agent: demoUuid('role', 2),
    supervisor: demoUuid('role', 3),
  },
  products: {
    voice: demoUuid('product', 1),
    contactCenter: demoUuid('product', 2),
    recording: demoUuid('product', 3),
  },
  /** Device (phoneId) of a demo extension's phone. */
  deviceId: (tenantId: number, ext: string) => `ph${tenantId}-${ext}`,
  extensionUuid: (tenantId: number, ext: string) => demoUuid('extension', tenantId * 10000 + Number(ext)),
} as const;
