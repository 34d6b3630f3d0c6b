export {
  isBodyTooLarge,
  type Limits,
  limitsFor,
  registerRestLimits,
  type RestLimitOptions,
} from './fastify-limits.js';
export { BusyError, type Release, RequestLimiter, type RequestLimits } from './request-limiter.js';
export {
  type AdmissionRefusal,
  SocketRegistry,
  type SocketLimits,
  type SocketSlot,
} from './socket-registry.js';
