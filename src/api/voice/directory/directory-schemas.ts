import { type Static, Type } from '@sinclair/typebox';
import { EXTENSION_TYPES } from '../../../directory/model.js';
import { halList, halObject } from '../hal/hal-schemas.js';

export const ExtensionTypeSchema = Type.Union(
  EXTENSION_TYPES.map((t) => Type.Literal(t)),
  { $id: 'ExtensionType', description: 'A value of the extensionType enum.' },
);

/**
 * A phone as the phone resource (`/tenants/{tenantId}/phones/{phoneId}`) shows it, wherever it is
 * embedded or listed: every attribute expanded, the phone's summary otherwise (one representation).
 */
export const UserPhoneSchema = halObject(
  {
    phoneId: Type.String(),
    tenantId: Type.Integer(),
    ownerExtension: Type.String(),
    model: Type.String(),
    macAddress: Type.String(),
    registered: Type.Boolean({ description: 'Whether the phone is registered now (live state).' }),
    lineCount: Type.Integer(),
    acceptsReinvite: Type.Boolean(),
    sendsReinvite: Type.Boolean(),
    siteAssignment: Type.String({ description: 'A value of the enum phoneSiteAssignmentType.' }),
  },
  { summary: ['phoneId', 'ownerExtension', 'model', 'registered'], closedLinks: true },
  {
    $id: 'UserPhone',
    description:
      'A phone as its own resource shows it: every attribute when expanded, phoneId, ownerExtension, model and registered otherwise.',
  },
);
export type UserPhone = Static<typeof UserPhoneSchema>;

// The list schemas here and in status-schemas.ts share halList's shape; each has its own items.
export const UserPhoneListSchema = halList('phones', UserPhoneSchema, {
  closedLinks: true,
  $id: 'UserPhoneList',
  description: 'The phones of a user or location.',
});
export type UserPhoneList = Static<typeof UserPhoneListSchema>;

const phonesEmbed = { phones: Type.Array(UserPhoneSchema) };

const extensionProps = {
  extension: Type.String(),
  accountId: Type.String({ description: '`<ext>@<tenantId>`.' }),
  name: Type.String(),
  firstName: Type.String(),
  lastName: Type.String(),
  extensionType: ExtensionTypeSchema,
  agent: Type.Boolean({ description: 'Whether the extension is a contact-center agent.' }),
  enabled: Type.Boolean(),
  siteId: Type.Optional(Type.String()),
};

export const ExtensionSchema = halObject(
  extensionProps,
  { embedded: phonesEmbed, closedLinks: true },
  { $id: 'Extension', description: 'One extension of a tenant.' },
);
export type Extension = Static<typeof ExtensionSchema>;

export const ExtensionListItemSchema = halObject(
  extensionProps,
  { embedded: phonesEmbed, summary: ['extension', 'name', 'extensionType'], closedLinks: true },
  {
    $id: 'ExtensionListItem',
    description: 'An extension in a list: extension, name and extensionType; all properties when expanded.',
  },
);
export type ExtensionListItem = Static<typeof ExtensionListItemSchema>;

export const ExtensionListSchema = halList('extensions', ExtensionListItemSchema, {
  closedLinks: true,
  $id: 'ExtensionList',
  description: 'The extensions of a tenant.',
});
export type ExtensionList = Static<typeof ExtensionListSchema>;

const deviceStateProps = {
  deviceId: Type.String(),
  tenantId: Type.Integer(),
  ownerExtension: Type.String(),
  model: Type.String(),
  state: Type.Union([Type.Literal('registered'), Type.Literal('unregistered')]),
};

export const DeviceStateSchema = halObject(
  deviceStateProps,
  { closedLinks: true },
  {
    $id: 'DeviceState',
    description: 'Whether a phone is registered now.',
  },
);
export type DeviceState = Static<typeof DeviceStateSchema>;

export const DeviceStateListItemSchema = halObject(
  deviceStateProps,
  { summary: ['deviceId', 'state'], closedLinks: true },
  { $id: 'DeviceStateListItem', description: 'deviceId and state; all properties when expanded.' },
);
export type DeviceStateListItem = Static<typeof DeviceStateListItemSchema>;

export const DeviceStateListSchema = halList('deviceStates', DeviceStateListItemSchema, {
  closedLinks: true,
  $id: 'DeviceStateList',
  description: 'Every phone (of the scoped tenant, for a scoped telco user) and its state.',
});
export type DeviceStateList = Static<typeof DeviceStateListSchema>;
