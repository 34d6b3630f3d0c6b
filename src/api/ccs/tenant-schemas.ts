/** Tenant administration (endpoints 1-14): resources, request bodies and answers. */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { RECORDING_TYPES } from '../../directory/model.js';
import { ListOf, NamedRefSchema, NumericText, TenantTimestamp, Uuid } from './common-schemas.js';
import { BoolText, CountText, OneOf } from './request-values.js';

export const TenantParamsSchema = Type.Object({
  tenant: Type.String({ description: 'The contact-center tenant uuid.' }),
});
export const TenantExtensionParamsSchema = Type.Object({
  tenant: Type.String({ description: 'The contact-center tenant uuid.' }),
  ext: Type.String({ description: 'The extension uuid.' }),
});

// ---- resources ----------------------------------------------------------------------------------

export const ProductSchema = Type.Object(
  { uuid: Uuid, name: Type.String(), notes: Type.String({ description: 'May be empty.' }) },
  { $id: 'Product', additionalProperties: false },
);
export type Product = Static<typeof ProductSchema>;

export const RoleSchema = Type.Object(
  { uuid: Uuid, name: Type.String() },
  { $id: 'Role', additionalProperties: false },
);
export type Role = Static<typeof RoleSchema>;

const TenantStatus = Type.Union([Type.Literal('enable'), Type.Literal('disable')]);

export const TenantItemSchema = Type.Object(
  {
    uuid: Uuid,
    telco_id: NamedRefSchema,
    status: TenantStatus,
    platform_id: NamedRefSchema,
    platform_tenant_url: Type.String(),
    platform_tenant_name: Type.String(),
    platform_tenant_id: Type.String({ description: 'The voice platform tenant id.' }),
    platform_authentication: Type.Boolean(),
    product_name: Type.String(),
    product_id: Type.Array(ProductSchema),
    modified_on: TenantTimestamp,
    created_on: TenantTimestamp,
    modified_by: Type.Array(Type.String(), { description: 'Usernames that changed the tenant.' }),
    cross_reference: Type.Array(Type.Unknown(), { maxItems: 0, description: 'Always empty here.' }),
    created_by: Type.String(),
  },
  { $id: 'TenantItem', additionalProperties: false },
);
export type TenantItem = Static<typeof TenantItemSchema>;

/** The tenant's limits: numeric text, changed through endpoint 13. */
const LIMIT_NAMES = [
  'rec_down_limit',
  'rec_extn_limit',
  'cdr_retention',
  'rec_retention',
  'monitor_ext_limit',
  'max_queues',
  'max_agents',
  'group_agent_limit',
  'chat_licenses',
  'multimedia_licenses',
  'library_limit',
  'campaign_size',
] as const;
const COUNT_NAMES = [
  'rec_extn_count',
  'monitor_ext_count',
  'max_queues_count',
  'max_agents_count',
  'group_agent_count',
  'chat_licenses_count',
  'multimedia_licenses_count',
] as const;
const fields = <K extends string, S extends TSchema>(names: readonly K[], schema: () => S) =>
  Object.fromEntries(names.map((n) => [n, schema()])) as Record<K, S>;

export const TenantDetailsSchema = Type.Object(
  {
    success: Type.Literal(true),
    uuid: Uuid,
    name: Type.String(),
    platform_tenant_name: Type.String(),
    platform_tenant_url: Type.String(),
    platform_tenant_id: Type.String(),
    sid: Type.String(),
    product_name: Type.String(),
    telco_id: NamedRefSchema,
    platform_id: NamedRefSchema,
    default_gateway_id: NamedRefSchema,
    product_id: Type.Array(ProductSchema),
    status: TenantStatus,
    platform_authentication: Type.Boolean(),
    platform_auth_editable: Type.Boolean(),
    platform_crplatform_enabled: Type.Boolean(),
    nightly_call_details: Type.Boolean(),
    sftp_export: Type.Boolean(),
    cleanup_sftp: Type.Boolean(),
    sftp_dir_configured: Type.Boolean(),
    ve_ivr: Type.Union([Type.Literal('true'), Type.Literal('false')]),
    site_ip_address: Type.String(),
    timezone: Type.String({ description: 'IANA zone name.', examples: ['America/New_York'] }),
    default_signin_method: Type.String(),
    default_outgoing_clid: Type.String(),
    service_extension: Type.String(),
    rec_quality: Type.String(),
    ...fields(LIMIT_NAMES, () => NumericText),
    agent_billing: Type.Union([Type.Literal('Named'), Type.Literal('Concurrent')]),
    ...fields(COUNT_NAMES, () => Type.Integer({ minimum: 0 })),
    modified_on: TenantTimestamp,
    created_on: TenantTimestamp,
    created_by: Type.String(),
  },
  { $id: 'TenantDetails', additionalProperties: false },
);
export type TenantDetails = Static<typeof TenantDetailsSchema>;

const acdItem = <T extends string>(type: T, id: string, description: string) =>
  Type.Object(
    {
      uuid: Uuid,
      type: Type.Literal(type),
      tenant_id: Uuid,
      name: Type.String(),
      extension: Type.String(),
      alternate_extensions: Type.Array(Type.String()),
    },
    { $id: id, additionalProperties: false, description },
  );
export const VoiceQueueItemSchema = acdItem('voice_queues', 'VoiceQueueItem', 'An inbound queue (ACD).');
export const OutboundQueueItemSchema = acdItem('voice_oqs', 'OutboundQueueItem', 'An outbound queue.');
export const ConditionalRouteItemSchema = acdItem(
  'conditional_routes',
  'ConditionalRouteItem',
  'A conditional route.',
);
export const VrqItemSchema = acdItem('vrqs', 'VrqItem', 'A virtual routing queue.');
export type VoiceQueueItem = Static<typeof VoiceQueueItemSchema>;
export type OutboundQueueItem = Static<typeof OutboundQueueItemSchema>;

/** One inner array per kind, in this order, each gated by its permission (docs/decisions.md §1.7). */
const AcdGroups = Type.Unsafe<
  [
    VoiceQueueItem[],
    OutboundQueueItem[],
    Static<typeof ConditionalRouteItemSchema>[],
    Static<typeof VrqItemSchema>[],
  ]
>({
  type: 'array',
  prefixItems: [
    Type.Array(VoiceQueueItemSchema, { description: 'Inbound queues (Voice IQs View).' }),
    Type.Array(OutboundQueueItemSchema, { description: 'Outbound queues (Voice OQs View).' }),
    Type.Array(ConditionalRouteItemSchema, { description: 'Conditional routes (Conditional Routes View).' }),
    Type.Array(VrqItemSchema, { description: 'VRQs (VRQs View).' }),
  ],
  items: false,
  minItems: 4,
  maxItems: 4,
});

export const AcdListSchema = Type.Object(
  {
    success: Type.Literal(true),
    total: Type.Integer({ minimum: 0, description: 'The number of items in all inner arrays.' }),
    items: AcdGroups,
  },
  { $id: 'AcdList', additionalProperties: false },
);
export type AcdList = Static<typeof AcdListSchema>;

export const PresenceOptionSchema = Type.Object(
  {
    uuid: Uuid,
    type: Type.Union([Type.Literal('sign_out'), Type.Literal('away')]),
    name: Type.String({ description: 'A name `updateAgentState` accepts.' }),
  },
  { $id: 'PresenceOption', additionalProperties: false },
);
export type PresenceOption = Static<typeof PresenceOptionSchema>;

export const ExtensionItemSchema = Type.Object(
  { uuid: Uuid, lastname: Type.String(), firstname: Type.String(), extension: Type.String() },
  { $id: 'ExtensionItem', additionalProperties: false },
);
export type ExtensionItem = Static<typeof ExtensionItemSchema>;

const Counter = () => Type.Integer({ minimum: 0 });
export const TextCountSchema = Type.Object(
  {
    tenant_sid: Type.String(),
    tenant_name: Type.String(),
    tenant_id: Uuid,
    sms_stats: Type.Object(
      { out_sms: Counter(), out_mms: Counter(), in_sms: Counter(), in_mms: Counter() },
      { additionalProperties: false },
    ),
  },
  { $id: 'TextCount', additionalProperties: false },
);
export type TextCount = Static<typeof TextCountSchema>;

export const ProductListSchema = ListOf(ProductSchema, 'ProductList', 'Products.');
export const RoleListSchema = ListOf(RoleSchema, 'RoleList', 'Roles.');
export const TenantListSchema = ListOf(TenantItemSchema, 'TenantList', 'The tenants the caller may see.');
export const PresenceOptionListSchema = ListOf(
  PresenceOptionSchema,
  'PresenceOptionList',
  'Presence options.',
);
export const ExtensionListSchema = ListOf(ExtensionItemSchema, 'ExtensionList', 'Extensions of the tenant.');

export const TextCountAnswerSchema = Type.Object(
  { success: Type.Literal(true), items: TextCountSchema },
  { $id: 'TextCountAnswer', additionalProperties: false, description: '`items` is one counters object.' },
);
export type TextCountAnswer = Static<typeof TextCountAnswerSchema>;

export const UuidAnswerSchema = Type.Object(
  { success: Type.Literal(true), uuid: Uuid },
  { $id: 'UuidAnswer', additionalProperties: false },
);
export type UuidAnswer = Static<typeof UuidAnswerSchema>;

// ---- requests -----------------------------------------------------------------------------------

export const TextCountRequestSchema = Type.Object(
  { request: Type.Literal('reset_counter') },
  { $id: 'TextCountRequest' },
);
export type TextCountRequest = Static<typeof TextCountRequestSchema>;

const productRequest = <R extends string>(request: R, id: string) =>
  Type.Object(
    {
      request: Type.Literal(request),
      product: Type.String({ minLength: 1, description: 'A product uuid (endpoint 1).' }),
    },
    { $id: id },
  );
export const AddProductRequestSchema = productRequest('add_product', 'AddProductRequest');
export const DeleteProductRequestSchema = productRequest('delete_product', 'DeleteProductRequest');
export const TenantProductRequestSchema = Type.Union([AddProductRequestSchema, DeleteProductRequestSchema], {
  $id: 'TenantProductRequest',
});
export type TenantProductRequest = Static<typeof TenantProductRequestSchema>;

// The limits an update (endpoint 13) may change: a subset of LIMIT_NAMES; an update leaves the rest.
export const LIMIT_FIELDS = [
  'rec_extn_limit',
  'monitor_ext_limit',
  'max_queues',
  'max_agents',
  'group_agent_limit',
  'chat_licenses',
  'multimedia_licenses',
] as const satisfies readonly (typeof LIMIT_NAMES)[number][];

export const TenantUpdateRequestSchema = Type.Object(
  {
    product_name: Type.Optional(Type.String()),
    ...fields(LIMIT_FIELDS, () => Type.Optional(CountText())),
    agent_billing: Type.Optional(OneOf(['Named', 'Concurrent'] as const)),
  },
  { $id: 'TenantUpdateRequest', description: 'Every field is optional; absent fields keep their value.' },
);
export type TenantUpdateRequest = Static<typeof TenantUpdateRequestSchema>;

export const ExtensionUpdateRequestSchema = Type.Object(
  {
    is_agent: Type.Optional(BoolText()),
    recording_type: Type.Optional(OneOf(RECORDING_TYPES)),
    monitor: Type.Optional(BoolText()),
    max_chats: Type.Optional(CountText(6)),
    is_multimedia_enabled: Type.Optional(BoolText()),
  },
  {
    $id: 'ExtensionUpdateRequest',
    description:
      'Agent settings of a user extension. Every field is optional; absent fields keep their value.',
  },
);
export type ExtensionUpdateRequest = Static<typeof ExtensionUpdateRequestSchema>;
