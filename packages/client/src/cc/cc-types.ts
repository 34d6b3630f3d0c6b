/**
 * Wire shapes of the contact-center API: the Static types of the server's own TypeBox schemas
 * (the ones that validate requests and are published in /openapi/contact-center.json), imported
 * as types only, under the names the client uses.
 */
import type {
  AgentStateChangedData,
  CallEventData as ServerCallEventData,
  CcEventFrame,
  PhoneStateChangedData,
  QueueStateChangedData,
  QueueStatisticsData as ServerQueueStatisticsData,
  SocketAnswer,
  SubscribeRequest,
} from '../../../../src/api/ccs/event-schemas.js';
import type {
  AgentState as ServerAgentState,
  AgentStateAnswer as ServerAgentStateAnswer,
  DialAnswer as ServerDialAnswer,
} from '../../../../src/api/ccs/agent-schemas.js';
import type {
  Call as ServerCall,
  CallAnswer as ServerCallAnswer,
  CallControlRequest as ServerCallControlRequest,
  CallList as ServerCallList,
  CallSearchQuery as ServerCallSearchQuery,
  CallSearchResult as ServerCallSearchResult,
  EventCall as ServerEventCall,
  LiveCall as ServerLiveCall,
} from '../../../../src/api/ccs/call-schemas.js';
import type {
  NamedRef as ServerNamedRef,
  SuccessAnswer as ServerSuccess,
} from '../../../../src/api/ccs/common-schemas.js';
import type { TokenGrant } from '../../../../src/api/ccs/oauth-schemas.js';
import type {
  AcdList,
  ExtensionItem as ServerExtensionItem,
  ExtensionUpdateRequest,
  OutboundQueueItem as ServerOutboundQueueItem,
  PresenceOption as ServerPresenceOption,
  Product as ServerProduct,
  Role as ServerRole,
  TenantDetails as ServerTenantDetails,
  TenantItem as ServerTenantItem,
  TenantUpdateRequest,
  TextCountAnswer as ServerTextCountAnswer,
  UuidAnswer as ServerUuidAnswer,
  VoiceQueueItem as ServerVoiceQueueItem,
} from '../../../../src/api/ccs/tenant-schemas.js';

export type TokenAnswer = TokenGrant;
export type SuccessAnswer = ServerSuccess;
export type UuidAnswer = ServerUuidAnswer;
export type NamedRef = ServerNamedRef;

/** The list envelope (`ListOf` on the server): `success`, `total` as numeric text, `items`. */
export interface ListEnvelope<T> {
  success: true;
  total: string;
  items: T[];
}

export type Product = ServerProduct;
export type Role = ServerRole;
export type TenantItem = ServerTenantItem;
export type TenantDetails = ServerTenantDetails;
/** `GET acds`: one inner list per kind (inbound queues, outbound queues, routes, VRQs). */
export type AcdsAnswer = AcdList;
export type VoiceQueueItem = ServerVoiceQueueItem;
export type OutboundQueueItem = ServerOutboundQueueItem;
export type PresenceOption = ServerPresenceOption;
export type ExtensionItem = ServerExtensionItem;
export type TextCountAnswer = ServerTextCountAnswer;
export type TenantLimits = TenantUpdateRequest;
export type ExtensionSettings = ExtensionUpdateRequest;

export type AgentState = ServerAgentState;
export type AgentStateAnswer = ServerAgentStateAnswer;
export type DialAnswer = ServerDialAnswer;

/** A finished call (list item shape). */
export type CcCall = ServerCall;
/** A call in progress (`type: "in_ecr"`). */
export type CcLiveCall = ServerLiveCall;
/** The call inside a call event. */
export type CcEventCall = ServerEventCall;
export type CcCallAnswer = ServerCallAnswer;
export type CcCallList = ServerCallList;
export type CallSearchQuery = ServerCallSearchQuery;
export type CallSearchResult = ServerCallSearchResult;
export type CallControlRequest = ServerCallControlRequest;

export type AgentEventData = AgentStateChangedData | PhoneStateChangedData | QueueStateChangedData;
export type CallEventData = ServerCallEventData;
export type QueueStatisticsData = ServerQueueStatisticsData;

/** Any event frame of the socket, typed by `event` and `category`. */
export type CcEvent = CcEventFrame;
export type CcEventCategory = CcEvent['category'];
/** What `subscribe` takes: event names and/or categories. */
export type CcEventFilter = SubscribeRequest['events'][number];
/** The server's answers to `connect`, `subscribe` and unknown requests. */
export type CcSocketAnswer = SocketAnswer;
