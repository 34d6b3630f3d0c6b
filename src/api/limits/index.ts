export {
  clientOf,
  forwardedBy,
  isBodyTooLarge,
  type Limits,
  limitsFor,
  type RestLimitOptions,
  registerRestLimits,
} from './fastify-limits.js';
export { BusyError, type Release, RequestLimiter, type RequestLimits } from './request-limiter.js';
export {
  type AdmissionRefusal,
  type SocketLimits,
  SocketRegistry,
  type SocketSlot,
} from './socket-registry.js';
