import { type Static, Type } from '@sinclair/typebox';
import { LIMITS, NON_BLANK_TEXT_PATTERN } from '../../schema/bounds.js';
import { ENUMS } from '../enums/enum-values.js';
import { halObject } from '../hal/hal-schemas.js';

export const AlertPrioritySchema = Type.Union(
  (ENUMS.alertPriority as readonly string[]).map((p) => Type.Literal(p)),
  { $id: 'AlertPriority', description: 'A value of the alertPriority enum.' },
);

const messageFields = {
  message: Type.String({
    pattern: NON_BLANK_TEXT_PATTERN,
    maxLength: LIMITS.textLength,
    description: `The text shown on the phones (not blank; line breaks allowed; at most ${LIMITS.textLength} characters).`,
  }),
  priority: Type.Optional(AlertPrioritySchema),
};

const targets = (description: string) => Type.Array(Type.String(), { minItems: 1, description });

export const AlertUsersBodySchema = Type.Object(
  {
    accountIds: targets('Extensions of the tenant (`101@1001`): every phone of each gets the message.'),
    ...messageFields,
  },
  { $id: 'AlertUsersRequest' },
);
export type AlertUsersBody = Static<typeof AlertUsersBodySchema>;

export const AlertSitesBodySchema = Type.Object(
  {
    siteIds: targets('Sites of the tenant (`site-1001-hq`): every phone of their extensions gets it.'),
    ...messageFields,
  },
  { $id: 'AlertSitesRequest' },
);
export type AlertSitesBody = Static<typeof AlertSitesBodySchema>;

export const SentMessageSchema = halObject(
  {
    message: Type.String(),
    priority: AlertPrioritySchema,
    deviceIds: Type.Array(Type.String(), { description: 'The phones the message was delivered to.' }),
  },
  { closedLinks: true },
  { $id: 'SentMessage', description: 'What was sent, and to which phones.' },
);
export type SentMessage = Static<typeof SentMessageSchema>;
