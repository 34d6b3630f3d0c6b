import type { CcPermission, TelcoPermission } from '../core/permissions.js';

/**
 * The provisioned world. Every entity is stored as one row of `directory_entities`
 * (kind, id, tenant_id, data) and held in memory by `Directory`.
 */
export const EXTENSION_TYPES = ['userExt', 'locationExt', 'acdExt', 'groupExt', 'autoAttendantExt'] as const;
export type ExtensionType = (typeof EXTENSION_TYPES)[number];

export const PHONE_MODELS = ['phoneModelA', 'phoneModelB', 'bst'] as const;
export type PhoneModel = (typeof PHONE_MODELS)[number];

export const CALL_GROUP_TYPES = ['hunt', 'broadcast', 'rollover'] as const;
export type CallGroupType = (typeof CALL_GROUP_TYPES)[number];

export const RECORDING_TYPES = ['None', 'Mandatory', 'On Demand'] as const;
export type RecordingType = (typeof RECORDING_TYPES)[number];

export interface TelcoUser {
  /** The login name (no `@`). */
  id: string;
  passwordHash: string;
  telcoPermissions: TelcoPermission[];
  /** Set for a scoped telco user. */
  scopedTenantId?: number;
  callControl: boolean;
  ccPermissions: CcPermission[];
  enabled: boolean;
}

/** Contact-center view of a tenant (spec: Tenant details). */
export interface CcTenant {
  uuid: string;
  sid: string;
  name: string;
  status: 'enable' | 'disable';
  timezone: string;
  productIds: string[];
  productName: string;
  agentBilling: 'Named' | 'Concurrent';
  limits: {
    rec_down_limit: string;
    rec_extn_limit: string;
    cdr_retention: string;
    rec_retention: string;
    monitor_ext_limit: string;
    max_queues: string;
    max_agents: string;
    group_agent_limit: string;
    chat_licenses: string;
    multimedia_licenses: string;
    library_limit: string;
    campaign_size: string;
  };
  createdOn: number;
  modifiedOn: number;
  createdBy: string;
  modifiedBy: string[];
}

export interface Tenant {
  /** Integer tenant id of the voice API, as a string key. */
  id: string;
  tenantId: number;
  name: string;
  active: boolean;
  /** Main DID in E.164, e.g. +15555550100. */
  did?: string;
  webLoginUrl?: string;
  /** Emergency numbers; defaults applied by the switch when empty. */
  emergencyNumbers?: string[];
  parkRecallMs?: number;
  cc: CcTenant;
}

export interface AgentSettings {
  isAgent: boolean;
  recordingType: RecordingType;
  monitor: boolean;
  maxChats: number;
  multimediaEnabled: boolean;
}

export interface AutoAttendantAction {
  /** A value of `autoAttendantActionType`. */
  action: 'transferToExtension' | 'transferToAcd' | 'transferToGroup' | 'repeatMenu' | 'disconnect';
  target?: string;
}

export interface Extension {
  /** `<tenantId>:<ext>` */
  id: string;
  tenantId: number;
  ext: string;
  type: ExtensionType;
  /** Contact-center extension uuid. */
  uuid: string;
  firstName: string;
  lastName: string;
  /** Display name (first + last for users). */
  name: string;
  pinHash?: string;
  admin: boolean;
  enabled: boolean;
  dnd: boolean;
  ringTimeoutMs: number;
  siteId?: string;
  /** Click-to-call defaults. */
  clickToCallDeviceId?: string;
  confirmBeforeDial: boolean;
  twinningNumber?: string;
  agent?: AgentSettings;
  ccRoleIds: string[];
  group?: { groupType: CallGroupType; members: string[] };
  acd?: { agents: string[]; ringTimeMs: number; maxMissed: number };
  autoAttendant?: { menu: Record<string, AutoAttendantAction>; timeoutAction?: AutoAttendantAction };
}

export interface Device {
  /** phoneId */
  id: string;
  tenantId: number;
  ownerExt: string;
  model: PhoneModel;
  registered: boolean;
  macAddress: string;
  /** Concurrent calls the phone handles (line appearances). */
  lineCount: number;
  acceptsReinvite: boolean;
  sendsReinvite: boolean;
}

export interface Did {
  id: string;
  tenantId: number;
  number: string;
  targetExt: string;
}

export interface ParkLocationRange {
  id: string;
  tenantId: number;
  first: number;
  last: number;
}

export interface Site {
  id: string;
  tenantId: number;
  name: string;
  kind: 'static' | 'dynamic';
}

export interface PresenceOption {
  /** uuid */
  id: string;
  tenantId: number;
  type: 'away' | 'sign_out';
  name: string;
}

export interface Product {
  id: string;
  name: string;
  notes: string;
}

export interface Role {
  id: string;
  /** Absent: a system role available to every tenant. */
  tenantId?: number;
  name: string;
  permissions: CcPermission[];
}

export interface OutboundQueue {
  id: string;
  tenantId: number;
  name: string;
  extension: string;
  callerId: string;
}

/** The typed entity kinds; other kinds (provisioning resources) are plain JSON records. */
export interface EntityKinds {
  telcoUser: TelcoUser;
  tenant: Tenant;
  extension: Extension;
  device: Device;
  did: Did;
  parkRange: ParkLocationRange;
  site: Site;
  presenceOption: PresenceOption;
  product: Product;
  role: Role;
  outboundQueue: OutboundQueue;
}
export type Kind = keyof EntityKinds;

export interface GenericEntity {
  id: string;
  tenantId?: number;
  [key: string]: unknown;
}

export interface StoredEntity {
  kind: string;
  id: string;
  tenantId: number | null;
  data: GenericEntity;
}

export const extensionKey = (tenantId: number, ext: string) => `${tenantId}:${ext}`;
