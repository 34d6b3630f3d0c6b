export { createClient, SwitchboardClient, type SwitchboardClientOptions } from './switchboard-client.js';
export { CLIENT_VERSION, userAgent } from './version.js';
export * from './errors.js';

export { VoiceClient, type VoiceClientOptions, type ExtensionQuery } from './voice/voice-client.js';
export { VoiceCalls, type PlacedCall } from './voice/voice-calls.js';
export { VoiceStatus } from './voice/voice-status.js';
export { VoiceNavigator } from './voice/voice-navigator.js';
export {
  VoiceEventStream,
  VOICE_KEEP_ALIVE_TEXT,
  type VoiceSocketOptions,
  type VoiceStreamEvents,
} from './voice/voice-event-stream.js';
export { SubscriptionSet, type SubscriptionSpec } from './voice/subscription-set.js';
export { VoiceWatch, type VoiceState, type VoiceUpdate } from './voice/voice-watch.js';
export {
  WatchedCallsReader,
  type WatchedCall,
  type CallActivity,
  type CallsListed,
} from './voice/watched-calls.js';
export type * from './voice/voice-types.js';

export { CcClient, type CcClientOptions } from './cc/cc-client.js';
export { CcTokens } from './cc/cc-tokens.js';
export {
  CcEventStream,
  ALL_CATEGORIES,
  type CcSocketOptions,
  type CcStreamEvents,
} from './cc/cc-event-stream.js';
export {
  CcWatch,
  type CcWatchOptions,
  type CcState,
  type CcUpdate,
  type AgentView,
  type QueueView,
} from './cc/cc-watch.js';
export type * from './cc/cc-types.js';

export { backoffDelay, type BackoffOptions } from './socket/backoff.js';
export { keepAliveInterval, type KeepAliveOptions } from './socket/keep-alive.js';
export { UpgradeRefusedError, HandshakeError, type CloseInfo } from './socket/frame-channel.js';
export { findLink, linkHref, embedded, props, type Hal, type HalLink } from './hal/hal.js';
export { expandTemplate } from './http/uri-template.js';
export { HttpTransport, type TransportOptions } from './http/transport.js';
