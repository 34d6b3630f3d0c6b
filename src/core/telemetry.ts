/**
 * The numbers a running server shows its operator (`GET /metrics`, src/server/metrics.ts).
 *
 * Counters are plain fields, bumped where the thing happens: an increment is all a hot path pays.
 * Gauges are callbacks that the part owning the state offers, read only when metrics are
 * scraped. Nothing here knows Prometheus; the server turns these into prom-client metrics.
 */
export type Labelled = ReadonlyArray<{ labels: Record<string, string>; value: number }>;

export interface GaugeDef {
  help: string;
  /** Label names of each value; none for a single number. */
  labelNames?: readonly string[];
  read: () => number | Labelled;
}

export class Telemetry {
  /** Event frames written to sockets, by API (`voice`, `contactCenter`). */
  readonly eventsSent = { voice: 0, contactCenter: 0 };
  /** Times a principal reached its failed-login limit and was locked out. */
  lockouts = 0;
  /** REST requests answered 503 because no slot came free in time. */
  busyRefusals = 0;

  private readonly gauges = new Map<string, GaugeDef>();

  /** Offers a gauge under a metric name (without the `switchboard_` prefix); the last offer wins. */
  offerGauge(name: string, def: GaugeDef): void {
    this.gauges.set(name, def);
  }

  offeredGauges(): ReadonlyMap<string, GaugeDef> {
    return this.gauges;
  }
}
