import type { Device, Extension, Tenant } from '../../../directory/model.js';
import { link } from '../hal/links.js';
import type { Entity, ItemSchema } from '../hal/model.js';

export const extensionHref = (e: Extension) => `/api/v1/tenants/${e.tenantId}/extensions/${e.ext}`;
const phoneHref = (d: Device) => `/api/v1/tenants/${d.tenantId}/phones/${d.id}`;

export const PHONE_SCHEMA: ItemSchema = {
  fields: {
    phoneId: 'string',
    model: 'string',
    registered: 'boolean',
    macAddress: 'string',
    ownerExtension: 'string',
  },
};

export const EXTENSION_SCHEMA: ItemSchema = {
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
  embeds: { phones: PHONE_SCHEMA },
};

export function phoneEntity(d: Device): Entity {
  return {
    props: {
      phoneId: d.id,
      model: d.model,
      registered: d.registered,
      macAddress: d.macAddress,
      ownerExtension: d.ownerExt,
    },
    summary: ['phoneId', 'model'],
    links: { self: link(phoneHref(d)) },
  };
}

export function extensionEntity(e: Extension, phones: () => Device[]): Entity {
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
    embeds: { phones: () => phones().map(phoneEntity) },
  };
}

export function userEntity(e: Extension, phones: () => Device[]): Entity {
  const props: Record<string, unknown> = {
    extension: e.ext,
    accountId: `${e.ext}@${e.tenantId}`,
    firstName: e.firstName,
    lastName: e.lastName,
    name: e.name,
    admin: e.admin,
    enabled: e.enabled,
    dnd: e.dnd,
    ringTimeoutSeconds: Math.round(e.ringTimeoutMs / 1000),
    confirmBeforeDial: e.confirmBeforeDial,
  };
  if (e.clickToCallDeviceId !== undefined) props.clickToCallDeviceId = e.clickToCallDeviceId;
  if (e.siteId !== undefined) props.siteId = e.siteId;
  const base = `/api/v1/tenants/${e.tenantId}`;
  return {
    props,
    links: {
      self: link(`${base}/${e.type === 'locationExt' ? 'locations' : 'users'}/${e.ext}`),
      'v1:extension': link(extensionHref(e)),
      'v1:userPhones': link(`${base}/users/${e.ext}/phones`),
    },
    embeds: { phones: () => phones().map(phoneEntity) },
  };
}

export function tenantEntity(t: Tenant): Entity {
  const props: Record<string, unknown> = { tenantId: t.tenantId, name: t.name, active: t.active };
  if (t.did !== undefined) props.did = t.did;
  if (t.webLoginUrl !== undefined) props.webLoginUrl = t.webLoginUrl;
  return {
    props,
    summary: ['tenantId', 'name'],
    links: {
      self: link(`/api/v1/tenants/${t.tenantId}`),
      'v1:extensions': link(`/api/v1/tenants/${t.tenantId}/extensions`),
    },
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
