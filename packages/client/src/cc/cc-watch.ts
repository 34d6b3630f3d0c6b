import { CcApiError, SwitchboardError } from '../errors.js';
import { WatchQueue, type WatchUpdate } from '../util/watch-queue.js';
import type { CcClient } from './cc-client.js';
import type { CcEventStream } from './cc-event-stream.js';
import type { AgentState, CcEvent, CcLiveCall } from './cc-types.js';

export interface CcWatchOptions {
  /** The tenant to watch; default: the caller's own (the only one `GET tenants` lists for them). */
  tenantUuid?: string;
}

/** One agent as `GET agent_state` and the agent events describe it. */
export interface AgentView extends AgentState {
  extension: string;
  extension_uuid: string;
  name: string;
}

/** One inbound queue: calls waiting now (from the live calls), and the latest statistics event. */
export interface QueueView {
  uuid: string;
  name: string;
  extension: string;
  /** Calls waiting in the queue (undefined when the caller may not list calls). */
  waiting: number | undefined;
}

export interface CcState {
  tenant: { uuid: string; name: string };
  agents: AgentView[];
  queues: QueueView[];
}

export type CcUpdate = WatchUpdate<CcEvent, CcState>;

/**
 * A tenant's agents and queues: events are received first and held while the state is read
 * from REST (agent states, queues, live calls), then delivered after it; after a reconnect the
 * state is read again (`resync`), since events were lost meanwhile.
 */
export class CcWatch implements AsyncIterable<CcUpdate> {
  private readonly queue = new WatchQueue<CcEvent, CcState>(
    () => this.readState(),
    (event) => event.tenant_id === this.initial.tenant.uuid,
  );
  private readonly off: (() => void)[] = [];

  private constructor(
    private readonly client: CcClient,
    private readonly stream: CcEventStream,
    private readonly options: CcWatchOptions,
    public initial: CcState,
  ) {}

  static async start(client: CcClient, stream: CcEventStream, options: CcWatchOptions): Promise<CcWatch> {
    const watch = new CcWatch(client, stream, options, {
      tenant: { uuid: '', name: '' },
      agents: [],
      queues: [],
    });
    watch.listen();
    try {
      watch.initial = await watch.readState();
    } catch (e) {
      watch.close();
      throw e;
    }
    watch.queue.release();
    return watch;
  }

  [Symbol.asyncIterator](): AsyncIterator<CcUpdate> {
    return this.queue[Symbol.asyncIterator]();
  }

  close(): void {
    for (const off of this.off.splice(0)) off();
    this.queue.end();
  }

  private listen(): void {
    this.off.push(
      this.stream.on('event', (event) => this.queue.event(event)),
      this.stream.on('connected', ({ reconnect, resumed }) => {
        if (reconnect && !resumed) void this.queue.resync();
      }),
      this.stream.on('error', (error) => this.queue.fail(error)),
    );
  }

  private async readState(): Promise<CcState> {
    const tenant = await this.tenant();
    const extensions = (await this.client.extensions(tenant.uuid)).items;
    const agents: AgentView[] = [];
    // One at a time: the API limits requests per client, and the spec asks clients to pace them.
    for (const e of extensions) {
      try {
        const { success: _, ...state } = await this.client.agentState(tenant.uuid, e.uuid);
        const name = [e.firstname, e.lastname].filter(Boolean).join(' ');
        agents.push({ extension: e.extension, extension_uuid: e.uuid, name, ...state });
      } catch (error) {
        if (!(error instanceof CcApiError && error.status === 400)) throw error; // 400: not an agent
      }
    }
    const acds = await this.client.acds(tenant.uuid);
    const inbound = acds.items.flat().filter((a) => a.type === 'voice_queues');
    const live = await this.liveCalls();
    const queues = inbound.map((q) => ({
      uuid: q.uuid,
      name: q.name,
      extension: q.extension,
      waiting:
        live &&
        live.filter(
          (c) => c.outcome === 'Progress' && 'uuid' in c.call_source && c.call_source.uuid === q.uuid,
        ).length,
    }));
    return { tenant, agents, queues };
  }

  private async tenant(): Promise<{ uuid: string; name: string }> {
    const tenants = (await this.client.tenants()).items;
    const wanted = this.options.tenantUuid;
    const t = wanted ? tenants.find((x) => x.uuid === wanted) : tenants.length === 1 ? tenants[0] : undefined;
    if (t) return { uuid: t.uuid, name: t.platform_tenant_name };
    if (wanted) return { uuid: wanted, name: (await this.client.tenant(wanted)).name };
    throw new SwitchboardError('this user sees several tenants: name one with tenantUuid');
  }

  /** The tenant's live calls, or undefined for callers that may not list calls (telco users). */
  private async liveCalls(): Promise<CcLiveCall[] | undefined> {
    try {
      const items = (await this.client.calls()).items;
      return items.filter((c): c is CcLiveCall => 'type' in c && c.type === 'in_ecr');
    } catch (error) {
      if (error instanceof CcApiError && error.status === 403) return undefined;
      throw error;
    }
  }
}
