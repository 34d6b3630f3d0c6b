import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Metric } from 'prom-client';
import { kRouteContext } from './fastify-internals.js';

/**
 * Request counts and latencies by route and status, recorded where Fastify already reports
 * every finished request (the log controller's `requestCompleted`), so recording adds no hook to
 * the request path: a few map lookups and an array increment. The counts become Prometheus
 * series only when metrics are scraped.
 */

/** Latency bucket bounds in seconds (the upper bound of each bucket; `+Inf` is implied). */
export const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
const BOUNDS_MS = LATENCY_BUCKETS.map((s) => s * 1000);

/** One sample as prom-client's registry formats it. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

interface Series {
  count: number;
  sumMs: number;
  /** Per bucket (not cumulative); the last is above every bound. */
  buckets: number[];
}

/** One route's series: by method (a route may serve several), then by status. */
interface RouteSeries {
  route: string;
  byMethod: Map<string, Map<number, Series>>;
}

/** Fastify's per-route context: the public `routeOptions` getter builds a new object per call. */
type RouteConfig = { url?: string };
type WithContext = { [kRouteContext]?: { config?: RouteConfig } };

export class RequestMeter {
  /** By the route's URL pattern (`unmatched` for 404s: a client's path never becomes a label). */
  private readonly routes = new Map<string, RouteSeries>();

  /** Records one finished request. */
  record(request: FastifyRequest, reply: FastifyReply): void {
    const key = (request as unknown as WithContext)[kRouteContext]?.config?.url ?? 'unmatched';
    let route = this.routes.get(key);
    if (!route) this.routes.set(key, (route = { route: key, byMethod: new Map() }));
    let byStatus = route.byMethod.get(request.method);
    if (!byStatus) route.byMethod.set(request.method, (byStatus = new Map()));
    let series = byStatus.get(reply.statusCode);
    if (!series) {
      series = { count: 0, sumMs: 0, buckets: new Array<number>(BOUNDS_MS.length + 1).fill(0) };
      byStatus.set(reply.statusCode, series);
    }
    const ms = reply.elapsedTime;
    series.count++;
    series.sumMs += ms;
    let i = 0;
    while (i < BOUNDS_MS.length && ms > BOUNDS_MS[i]) i++;
    series.buckets[i]++;
  }

  /** Answers with a status, over every route (e.g. 503: busy). */
  countWithStatus(status: number): number {
    let n = 0;
    for (const r of this.routes.values())
      for (const byStatus of r.byMethod.values()) n += byStatus.get(status)?.count ?? 0;
    return n;
  }

  /** `switchboard_http_requests_total` and `switchboard_http_request_duration_seconds`. */
  metrics(): Metric[] {
    return [
      this.custom(
        'switchboard_http_requests_total',
        'HTTP answers by method, route and status.',
        'counter',
        () => this.each((labels, s) => [{ labels, value: s.count }]),
      ),
      this.custom(
        'switchboard_http_request_duration_seconds',
        'Time from routing to the last byte of the answer, by method, route and status.',
        'histogram',
        () =>
          this.each((labels, s) => histogramValues('switchboard_http_request_duration_seconds', labels, s)),
      ),
    ];
  }

  private each(values: (labels: Record<string, string>, s: Series) => Sample[]) {
    const out: Sample[] = [];
    for (const r of this.routes.values()) {
      for (const [method, byStatus] of r.byMethod) {
        for (const [status, s] of byStatus) {
          out.push(...values({ method, route: r.route, status: String(status) }, s));
        }
      }
    }
    return out;
  }

  /** A prom-client metric whose values are computed at scrape time from our own counts. */
  private custom(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]): Metric {
    const get = () => ({ name, help, type, aggregator: 'sum', values: values() });
    return { name, help, type, aggregator: 'sum', get, reset() {} } as unknown as Metric;
  }
}

function histogramValues(name: string, labels: Record<string, string>, s: Series): Sample[] {
  const out: Sample[] = [];
  let cumulative = 0;
  for (let i = 0; i < LATENCY_BUCKETS.length; i++) {
    cumulative += s.buckets[i];
    out.push({
      metricName: `${name}_bucket`,
      labels: { ...labels, le: LATENCY_BUCKETS[i] },
      value: cumulative,
    });
  }
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: s.count });
  out.push({ metricName: `${name}_sum`, labels, value: s.sumMs / 1000 });
  out.push({ metricName: `${name}_count`, labels, value: s.count });
  return out;
}
