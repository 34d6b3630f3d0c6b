import type { ResourceDef } from '../hal/resource.js';
import { collectionResources, singletonResources } from './collection.js';
import { lookupResources } from './lookups.js';
import { SYSTEM } from './system-resources.js';
import { SETTINGS } from './system-settings.js';
import { TENANT_COLLECTIONS, tenants } from './tenant-resources.js';

/** Every provisioning resource behind the v1 root and the uridictionary. */
export const provisioningResources: ResourceDef[] = [
  ...Object.values(SYSTEM).flatMap(collectionResources),
  ...SETTINGS.flatMap(singletonResources),
  ...Object.values(TENANT_COLLECTIONS).flatMap(collectionResources),
  ...collectionResources(tenants),
  ...lookupResources,
];
