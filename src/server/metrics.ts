import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import { authenticatorFor, telcoAdminOf } from '../api/auth/index.js';
import { limitsFor } from '../api/limits/index.js';
import type { TenantLoad } from '../switch/switch.js';
import { RequestMeter } from './request-meter.js';
import type { Runtime } from './runtime.js';

/**
 * `GET /metrics` in Prometheus text (docs/operations.md lists every series). Only the request
 * meter records per request, inside Fastify's own completion callback; every other number is
 * read from the part that owns it when Prometheus scrapes. prom-client is loaded, and process
 * metrics start, with the first scrape: a server nobody watches pays nothing for them, at start
 * (loading prom-client is a visible share of a cold start) or later.
 *
 * A part of the server that holds a number worth watching offers it through
 * `runtime.telemetry.offerGauge` (the voice API's subscription sets; in a cluster, the leases a
 * node holds as `cluster_leases_held`): it appears as `switchboard_<name>` with no change here.
 */
type PromClient = typeof import('prom-client');

export class ServerMetrics {
  readonly requests = new RequestMeter();
  private registry?: Promise<Registry>;
  private readonly openSockets = { voice: 0, contactCenter: 0 };

  constructor(private readonly runtime: Runtime) {}

  /** Counts the sockets each API holds open (every upgraded socket is announced on the server). */
  watchSockets(app: FastifyInstance): void {
    app.websocketServer.on('connection', (socket, req) => {
      const api = req.url?.startsWith('/6/v2/') ? 'contactCenter' : 'voice';
      this.openSockets[api]++;
      socket.once('close', () => this.openSockets[api]--);
    });
  }

  async scrape(): Promise<{ contentType: string; body: string }> {
    const registry = await (this.registry ??= this.createRegistry());
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private async createRegistry(): Promise<Registry> {
    const prom = await import('prom-client');
    const registry = new prom.Registry();
    for (const m of this.requests.metrics()) registry.registerMetric(m);
    this.defineGauges(prom, registry);
    this.defineOfferedGauges(prom, registry);
    prom.collectDefaultMetrics({ register: registry });
    return registry;
  }

  private defineGauges({ Counter, Gauge }: PromClient, registry: Registry): void {
    const { runtime } = this;
    const registers = [registry];
    const telemetry = runtime.telemetry;
    const limits = limitsFor(runtime);
    new Gauge({
      name: 'switchboard_http_requests_in_flight',
      help: 'REST requests of both APIs holding a slot of --limit-inflight.',
      registers,
      collect() {
        this.set(limits.requests.inFlight());
      },
    });
    const requests = this.requests;
    new Counter({
      name: 'switchboard_http_busy_total',
      help: 'Answers with status 503 (busy, shutting down, database unreachable).',
      registers,
      collect() {
        this.reset();
        this.inc(requests.countWithStatus(503));
      },
    });
    const sockets = this.openSockets;
    new Gauge({
      name: 'switchboard_websockets_open',
      help: 'Open event sockets by API (voice: /api/ws, contactCenter: /6/v2/sock).',
      labelNames: ['api'],
      registers,
      collect() {
        for (const [api, n] of Object.entries(sockets)) this.set({ api }, n);
      },
    });
    new Counter({
      name: 'switchboard_events_sent_total',
      help: 'Event frames written to sockets, by API.',
      labelNames: ['api'],
      registers,
      collect() {
        this.reset();
        for (const [api, n] of Object.entries(telemetry.eventsSent)) this.inc({ api }, n);
      },
    });
    new Counter({
      name: 'switchboard_lockouts_total',
      help: 'Times a principal reached its failed-login limit and was locked out.',
      registers,
      collect() {
        this.reset();
        this.inc(telemetry.lockouts);
      },
    });
    const perTenant = (name: string, help: string, pick: (l: TenantLoad) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['tenant'],
        registers,
        collect() {
          this.reset();
          for (const [tenant, load] of runtime.switch.load())
            this.set({ tenant: String(tenant) }, pick(load));
        },
      });
    perTenant('switchboard_live_calls', 'Calls in progress, by tenant id.', (l) => l.liveCalls);
    perTenant(
      'switchboard_acd_waiting_calls',
      'Calls waiting in ACD queues, by tenant id.',
      (l) => l.waitingCalls,
    );
    perTenant(
      'switchboard_tenant_queue_pending',
      'Effects waiting on the tenant’s serialized queue (0 between commands), by tenant id.',
      (l) => l.pendingEffects,
    );
  }

  /** Gauges the parts of the server offer once they are set up (subscription sets; leases held). */
  private defineOfferedGauges({ Gauge }: PromClient, registry: Registry): void {
    const registers = [registry];
    for (const [name, def] of this.runtime.telemetry.offeredGauges()) {
      new Gauge({
        name: `switchboard_${name}`,
        help: def.help,
        labelNames: def.labelNames ?? [],
        registers,
        collect() {
          const v = def.read();
          if (typeof v === 'number') return this.set(v);
          this.reset();
          for (const { labels, value } of v) this.set(labels, value);
        },
      });
    }
  }
}

/** The route; with `--metrics-auth`, only a telco administrator (Basic) may read it. */
export async function metricsRoute(app: FastifyInstance, opts: { runtime: Runtime; metrics: ServerMetrics }) {
  const { runtime, metrics } = opts;
  const auth = authenticatorFor(runtime);
  app.get('/metrics', { config: { undocumented: true } }, async (req, reply) => {
    if (runtime.config.metricsAuth && !(await telcoAdminOf(auth, req.headers.authorization, req.ip))) {
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="metrics"')
        .type('text/plain')
        .send('Metrics need HTTP Basic credentials of a telco administrator.\n');
    }
    const { contentType, body } = await metrics.scrape();
    return reply.type(contentType).send(body);
  });
}
