import { AUTO_ATTENDANT_ACTIONS } from './domain-values.js';

/**
 * All 44 enums of the voice API. `extensionType` and `callRequest` are the spec's; the others are
 * our choice (docs/voice-api.md lists them). A value is `name` or `[name, defaultLabel]`.
 */
type Value = string | [string, string];

export const ENUMS: Record<string, readonly Value[]> = {
  parkLocationRange: ['tenant', 'site'],
  extensionType: [
    ['userExt', 'User'],
    ['locationExt', 'Location'],
    ['acdExt', 'ACD'],
    ['groupExt', 'Call group'],
    ['autoAttendantExt', 'Auto attendant'],
  ],
  directorySearchType: ['firstName', 'lastName', 'extension', 'all'],
  subscriberClidType: ['extensionNumber', 'did', 'mainNumber', 'private'],
  parameterType: [
    'field',
    'value',
    'tenantId',
    'extension',
    'accountId',
    'callObserverId',
    'deviceId',
    'webSocketId',
    'subscriptionSetId',
    'parkLocation',
    'filterCondition',
    'enumName',
    'seconds',
  ],
  callparkLocationAlgorithm: ['firstAvailable', 'roundRobin'],
  signallingProtocol: ['sip', 'sipTls', 'h323'],
  autoAttendantActionType: AUTO_ATTENDANT_ACTIONS,
  callRequest: [
    ['answerCall', 'Answer call'],
    ['hangupCall', 'Hang up call'],
    ['deflectCall', 'Deflect call'],
    ['holdCall', 'Hold call'],
    ['resumeHeldCall', 'Resume held call'],
    ['transfer', 'Transfer'],
    ['parkCall', 'Park call'],
  ],
  callForwardTargetType: ['extension', 'voicemail', 'externalNumber', 'none'],
  callTargetType: ['extension', 'acd', 'callGroup', 'autoAttendant', 'voicemail', 'externalNumber'],
  callGroupType: [
    ['hunt', 'Hunt'],
    ['broadcast', 'Broadcast'],
    ['rollover', 'Rollover'],
  ],
  ringBehaviourType: ['ringAll', 'ringSequential', 'ringLongestIdle'],
  huntGroupType: ['linear', 'circular', 'longestIdle'],
  phoneModelABlfRingToneType: ['silent', 'beep', 'ring1', 'ring2', 'ring3'],
  phoneModelBRingToneType: ['silent', 'tone1', 'tone2', 'tone3', 'tone4'],
  deviceIdType: [
    ['device', 'Device'],
    ['external', 'External number'],
    ['twinningDevice', 'Twinning device'],
  ],
  callDestinationType: ['internal', 'local', 'national', 'international', 'emergency', 'premium', 'tollFree'],
  clidMatchType: ['exact', 'prefix', 'any'],
  keyFeatureDataType: ['extension', 'parkLocation', 'speedDial', 'line', 'none'],
  keyFeatureDataRequire: ['required', 'optional', 'none'],
  pinNotificationMethodType: ['email', 'sms', 'none'],
  routeType: ['pri', 'sip', 'gateway'],
  classOfService: ['internalOnly', 'local', 'national', 'international', 'unrestricted'],
  numberOfDigitsType: ['fixed', 'variable'],
  phoneSiteAssignmentType: ['static', 'dynamic'],
  sipPhoneNameDefaultType: ['extension', 'userName', 'macAddress'],
  codecType: ['G711U', 'G711A', 'G722', 'G729', 'OPUS'],
  packetizationIntervalType: ['ms10', 'ms20', 'ms30', 'ms40'],
  moreHelpLinkType: ['none', 'default', 'custom'],
  voicemailBoxStateType: ['enabled', 'disabled', 'full'],
  gatewayType: ['analog', 'pri', 'sip'],
  mediaServerType: ['primary', 'secondary'],
  conferenceServerType: ['audio', 'video'],
  platformSiteIPAssignType: ['static', 'dhcp'],
  supportLinkVisibilityType: ['visible', 'hidden'],
  supportLinkType: ['url', 'email', 'phone'],
  telcoGroupPermissionType: [
    ['TenantBasicOrAdvanceManagement', 'Tenant management'],
    ['SystemManagement', 'System management'],
    ['ElementManagement', 'Element management'],
    ['SiteBasicOrAdvanceManagement', 'Site management'],
    ['CallControl', 'Call control'],
  ],
  presenceStateRoutingOverrideType: ['none', 'busy', 'unavailable', 'dnd'],
  dhcpOptionValueType: ['string', 'integer', 'ipAddress', 'boolean', 'hex'],
  alertPriority: ['low', 'normal', 'high', 'emergency'],
  phoneMessageAlertType: ['text', 'textAndTone', 'popup'],
  runningTaskType: ['bulkImport', 'bulkExport', 'backup', 'restore', 'firmwareUpgrade'],
  runningTaskState: ['queued', 'running', 'completed', 'failed', 'cancelled'],
};

export interface EnumValue {
  name: string;
  defaultLabel: string;
}

/** `holdCall` -> `Hold call`. */
const label = (name: string) => {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export function enumValues(name: string): EnumValue[] {
  return (ENUMS[name] ?? []).map((v) =>
    Array.isArray(v) ? { name: v[0], defaultLabel: v[1] } : { name: v, defaultLabel: label(v) },
  );
}

/** Enum names by their lowercase path form (`/api/v1/enums/extensiontype`). */
export const ENUM_BY_PATH = new Map(Object.keys(ENUMS).map((n) => [n.toLowerCase(), n]));
