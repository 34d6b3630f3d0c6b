import { authenticatorFor } from '../api/auth/index.js';
import type { CcRuntime } from '../api/ccs/cc-runtime.js';
import { continuityFor } from '../api/continuity/index.js';
import { limitsFor } from '../api/limits/index.js';
import type { SimRuntime } from '../api/sim/sim-runtime.js';
import type { VoiceRuntime } from '../api/voice/voice-runtime.js';
import { SqlWebhookStore } from '../store/webhook-store.js';
import type { EventStreamSource } from '../core/event-stream.js';
import type { Runtime } from './runtime.js';

/**
 * Each API is given only the ports it needs, built here from the whole runtime: the server is the
 * one place that knows every part (docs/architecture.md). The authenticator and the limits are
 * the runtime's one instance of each, so lock-outs and caps hold across the APIs.
 *
 * The ports both event-serving APIs (voice and contact center) take alike. */
function eventApiPorts(runtime: Runtime) {
  return {
    directory: runtime.directory,
    clock: runtime.clock,
    events: runtime.bus,
    docs: runtime.docs,
    auth: authenticatorFor(runtime),
    limits: limitsFor(runtime),
    continuity: continuityFor(runtime),
    telemetry: runtime.telemetry,
    config: runtime.config,
    ...(runtime.traffic ? { traffic: runtime.traffic } : {}),
    ...(runtime.placement ? { placement: runtime.placement } : {}),
    ...(runtime.eventStream ? { eventsCaughtUp: () => caughtUp(runtime.eventStream!) } : {}),
  };
}

export function voiceRuntime(runtime: Runtime): VoiceRuntime {
  return {
    ...eventApiPorts(runtime),
    switch: runtime.switch,
    webhookStore: new SqlWebhookStore(runtime.db),
    membership: runtime.membership,
    onReset: (hook) => runtime.onReset(hook),
  };
}

export function ccRuntime(runtime: Runtime): CcRuntime {
  return {
    ...eventApiPorts(runtime),
    contactCenter: runtime.contactCenter,
    callRecords: runtime.callRecords,
    db: runtime.db,
    log: runtime.log,
  };
}

export function simRuntime(runtime: Runtime): SimRuntime {
  return {
    directory: runtime.directory,
    clock: runtime.clock,
    switch: runtime.switch,
    contactCenter: runtime.contactCenter,
    docs: runtime.docs,
    auth: authenticatorFor(runtime),
    config: runtime.config,
    resetToDemo: () => (runtime.world ? runtime.world.reset() : runtime.resetToDemo()),
    ...(runtime.world ? { advanceClock: (ms: number) => runtime.world!.advanceClock(ms) } : {}),
    ...(runtime.placement ? { placement: runtime.placement } : {}),
    ...(runtime.eventStream ? { eventsStored: () => runtime.eventStream!.stored() } : {}),
  };
}

/**
 * Resolves once this node has consumed every event the stream held, its own events published so
 * far among them (each step bounded: the node goes on with what it has).
 */
async function caughtUp(stream: EventStreamSource<unknown>): Promise<boolean> {
  await stream.stored();
  return stream.caughtUp();
}
