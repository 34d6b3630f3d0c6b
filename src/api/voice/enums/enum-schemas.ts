import { type Static, Type } from '@sinclair/typebox';
import { halList, halObject } from '../hal/hal-schemas.js';
import { ENUMS } from './enum-values.js';

export const EnumNameSchema = Type.Union(
  Object.keys(ENUMS).map((name) => Type.Literal(name)),
  { $id: 'EnumName', description: 'The name of an enum of the voice API.' },
);

export const EnumValueSchema = Type.Object(
  {
    name: Type.String({ description: 'The value as the API uses it.' }),
    defaultLabel: Type.String({ description: 'A label for people.' }),
  },
  { $id: 'EnumValue', additionalProperties: false },
);
export type EnumValue = Static<typeof EnumValueSchema>;

const enumProps = { name: EnumNameSchema, values: Type.Array(EnumValueSchema) };

export const EnumSchema = halObject(
  enumProps,
  { closedLinks: true },
  { $id: 'Enum', description: 'One enum.' },
);
export type Enum = Static<typeof EnumSchema>;

/** An element of the enum list: the name, and the values when expanded (`expand=item`). */
export const EnumListItemSchema = halObject(
  enumProps,
  { summary: ['name'], closedLinks: true },
  { $id: 'EnumListItem' },
);

export const EnumListSchema = halList('enums', EnumListItemSchema, {
  closedLinks: true,
  $id: 'EnumList',
  description: 'Every enum of the API.',
});
export type EnumList = Static<typeof EnumListSchema>;
