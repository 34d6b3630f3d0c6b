import type { CcTenant } from './model.js';

/**
 * Provisioning entities that are not typed kinds of model.ts. Each is one JSON row of
 * `directory_entities` under the kind named here; the voice API's provisioning resources
 * (docs/provisioning.md) read and write them. Only the ones another module may read are typed.
 */
export const PROVISIONING_KINDS = [
  'announcement',
  'defaultSystemAnnouncement',
  'customAnnouncementFile',
  'defaultAnnouncementFile',
  'language',
  'aaLanguage',
  'vmLanguage',
  'crPlatform',
  'priGroup',
  'route',
  'dialPlan',
  'enterprise',
  'zone',
  'codecSet',
  'defaultCodecSet',
  'brandDetail',
  'standardDhcpOption',
  'customDhcpOption',
  'serviceProvider',
  'voicemailServer',
  'carrier',
  'appServer',
  'gateway',
  'mediaServer',
  'conferenceServer',
  'rtpProxyServer',
  'callpServer',
  'phoneAccessEntry',
  'licensing',
  'pinNotificationSettings',
  'systemProperties',
  'runningTask',
  'businessHoursProfile',
  'keyProfile',
  'callPermissionProfile',
  'externalContact',
] as const;
export type ProvisioningKind = (typeof PROVISIONING_KINDS)[number];

/** A trunk to the outside world (kind `carrier`). */
export interface Carrier {
  id: string;
  name: string;
  host: string;
  port: number;
  signallingProtocol: string;
  clidMatch: string;
  codecSetId?: string;
  enabled: boolean;
}

/** How outside calls leave (kind `route`): over a carrier, a PRI group or a gateway. */
export interface Route {
  id: string;
  name: string;
  /** A value of the `routeType` enum: pri, sip, gateway. */
  routeType: string;
  carrierId?: string;
  priGroupId?: string;
  gatewayId?: string;
  /** Lower is preferred. */
  priority: number;
  callerIdOverride?: string;
  enabled: boolean;
}

/** One rule of a dial plan: dialed digits starting with `pattern` (after the outside prefix). */
export interface DialPlanRule {
  pattern: string;
  /** A value of `callDestinationType`: internal, local, national, international, emergency, ... */
  destinationType: string;
  routeId: string;
  stripDigits: number;
  prependDigits: string;
  classOfService: string;
}

/**
 * Which route an outside call takes (kind `dialPlan`). The switch should pick the enabled plan with
 * `isDefault`, strip `outsideLinePrefix`, take the rule with the longest matching `pattern`, and
 * send the call over that rule's route (refusing it when the route or its carrier is disabled).
 */
export interface DialPlan {
  id: string;
  name: string;
  outsideLinePrefix: string;
  isDefault: boolean;
  rules: DialPlanRule[];
  enabled: boolean;
}

/** Contact-center limits a new tenant starts with. */
export const DEFAULT_CC_LIMITS: CcTenant['limits'] = {
  rec_down_limit: '100',
  rec_extn_limit: '50',
  cdr_retention: '365',
  rec_retention: '90',
  monitor_ext_limit: '10',
  max_queues: '20',
  max_agents: '50',
  group_agent_limit: '25',
  chat_licenses: '0',
  multimedia_licenses: '0',
  library_limit: '100',
  campaign_size: '1000',
};
