import type { ResourceDef } from '../hal/resource.js';
import { collectionResources, guardReferences, singletonResources } from './collection.js';
import { lookupResources } from './lookups.js';
import { SYSTEM } from './system-resources.js';
import { SETTINGS } from './system-settings.js';
import { TENANT_COLLECTIONS, tenants } from './tenant-resources.js';

/** Every provisioning resource behind the v1 root and the uridictionary. */
const system = Object.values(SYSTEM);

export const provisioningResources: ResourceDef[] = [
  ...guardReferences(system, [...system, ...SETTINGS]).flatMap(collectionResources),
  ...SETTINGS.flatMap(singletonResources),
  ...Object.values(TENANT_COLLECTIONS).flatMap(collectionResources),
  ...collectionResources(tenants),
  ...lookupResources,
];
