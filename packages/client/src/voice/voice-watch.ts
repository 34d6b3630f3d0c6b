import { WatchQueue, type WatchUpdate } from '../util/watch-queue.js';
import type { SubscriptionSet, SubscriptionSpec } from './subscription-set.js';
import type { VoiceEventStream } from './voice-event-stream.js';
import type { ParkLocationStatus, PresenceStatus, VoiceEvent } from './voice-types.js';
import type {
  CallActivity,
  CallsListed,
  WatchedCall,
  WatchedCallsReader,
  WatchedCallsState,
} from './watched-calls.js';

/**
 * The state a watch starts from, read from the status resources and the call list. The call
 * fields are empty when the set watches no calls; group tokens count as the accounts they stand
 * for.
 */
export interface VoiceState {
  /** Presence of every account the set watches for presence (empty when it watches none). */
  presence: PresenceStatus[];
  /** Status of every park location the set watches; a parked call's leg is its `callId`. */
  parkLocations: ParkLocationStatus[];
  /**
   * The legs of the watched call accounts that were in progress, one per watched account in the
   * call (two when both parties are watched), as far as the call list shows them to this
   * requester: see `callsListed`.
   */
  activeCalls: WatchedCall[];
  /**
   * `'all'` (scoped telco user): `activeCalls` is complete. `'own'` (tenant admin, user,
   * location): it holds only the requester's own calls, because the API lists no other
   * extension's calls to them; a watched account that is `busy` in `callActivity` without a leg
   * in `activeCalls` is in a call the state cannot show. `'none'`: the set watches no calls.
   */
  callsListed: CallsListed;
  /**
   * idle or busy of every user and location the set watches for calls, from the presence status
   * (ACD, group and auto-attendant extensions have no presence).
   */
  callActivity: CallActivity[];
}

const NO_CALLS: WatchedCallsState = { activeCalls: [], callsListed: 'none', callActivity: [] };

/** What a watch yields after its initial state. */
export type VoiceUpdate = WatchUpdate<VoiceEvent, VoiceState>;

/**
 * Initial state, then events, in the order the spec asks for: subscribe first, then read the
 * status resources, then deliver the events that arrived meanwhile, so none falls between the
 * read and the subscription. After a reconnect the same happens again (`resync`).
 */
export class VoiceWatch implements AsyncIterable<VoiceUpdate> {
  private readonly queue = new WatchQueue<VoiceEvent, VoiceState>(() => this.readState());
  private readonly unsubscribe: (() => void)[] = [];

  private constructor(
    readonly set: SubscriptionSet,
    private readonly stream: VoiceEventStream,
    private readonly calls: WatchedCallsReader,
    public initial: VoiceState,
  ) {}

  static async start(
    stream: VoiceEventStream,
    calls: WatchedCallsReader,
    spec: SubscriptionSpec,
  ): Promise<VoiceWatch> {
    const set = await stream.subscribe(spec);
    const watch = new VoiceWatch(set, stream, calls, { presence: [], parkLocations: [], ...NO_CALLS });
    watch.listen();
    try {
      watch.initial = await watch.readState();
    } catch (e) {
      await watch.close();
      throw e;
    }
    watch.queue.release();
    return watch;
  }

  [Symbol.asyncIterator](): AsyncIterator<VoiceUpdate> {
    return this.queue[Symbol.asyncIterator]();
  }

  /** Stops the watch: the set stops watching and the iteration ends. */
  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    this.queue.end();
    await this.set.close();
  }

  private listen(): void {
    this.unsubscribe.push(
      this.set.on('event', (event) => this.queue.event(event)),
      this.stream.on('connected', ({ reconnect, resumed }) => {
        if (reconnect && !resumed && !this.set.closed) void this.queue.resync();
      }),
      this.stream.on('error', (error, set) => {
        if (set === undefined || set === this.set) this.queue.fail(error);
      }),
    );
  }

  private async readState(): Promise<VoiceState> {
    const spec = this.set.spec;
    return {
      presence: spec.presence?.length ? await this.set.presenceStatus() : [],
      parkLocations:
        spec.parkLocations === 'all' || spec.parkLocations?.length ? await this.set.parkLocationStatus() : [],
      // The accounts as the server holds them (canonical forms), not as the application wrote them.
      ...(spec.calls?.length ? await this.calls.read(await this.set.eventAccounts('calls')) : NO_CALLS),
    };
  }
}
