import type { Device, Extension } from '../../../directory/model.js';
import { phoneFilterSchema } from '../provisioning/tenant-resources.js';
import { link } from '../hal/links.js';
import type { Entity, ItemSchema } from '../hal/model.js';

export const extensionHref = (e: Extension) => `/api/v1/tenants/${e.tenantId}/extensions/${e.ext}`;
/** What `filter` may name on an extension: its properties, and those of its phones. */
export const extensionSchema = (): ItemSchema => ({
  fields: {
    extension: 'string',
    accountId: 'string',
    name: 'string',
    firstName: 'string',
    lastName: 'string',
    extensionType: 'string',
    agent: 'boolean',
    enabled: 'boolean',
    siteId: 'string',
  },
  embeds: { phones: phoneFilterSchema() },
});

/** An extension; `phones` renders its phones as the phone resource does. */
export function extensionEntity(e: Extension, phones: () => Entity[]): Entity {
  const props: Record<string, unknown> = {
    extension: e.ext,
    accountId: `${e.ext}@${e.tenantId}`,
    name: e.name,
    firstName: e.firstName,
    lastName: e.lastName,
    extensionType: e.type,
    agent: e.agent?.isAgent ?? false,
    enabled: e.enabled,
  };
  if (e.siteId !== undefined) props.siteId = e.siteId;
  return {
    props,
    summary: ['extension', 'name', 'extensionType'],
    links: { self: link(extensionHref(e)) },
    embeds: { phones },
  };
}

export function deviceStateEntity(d: Device): Entity {
  return {
    props: {
      deviceId: d.id,
      tenantId: d.tenantId,
      ownerExtension: d.ownerExt,
      model: d.model,
      state: d.registered ? 'registered' : 'unregistered',
    },
    summary: ['deviceId', 'state'],
    links: { self: link(`/api/v1/devicestates/${encodeURIComponent(d.id)}`) },
  };
}
