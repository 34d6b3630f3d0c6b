/**
 * Wall-clock parts and UTC offsets of an IANA time zone at an instant. Intl's `formatToParts` costs
 * microseconds a call, and a contact-center call list formats thousands of instants (issue 19), so
 * the zone's offset is read with Intl once per hour of UTC time shown and the parts are computed
 * from it; an hour in which the offset changes is read with Intl instant by instant.
 */

const formats = new Map<string, Intl.DateTimeFormat>();

function format(tz: string): Intl.DateTimeFormat {
  let f = formats.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(tz, f);
  }
  return f;
}

/** Is this a time zone name the runtime knows (`UTC`, `America/New_York`)? */
export function isTimeZone(tz: string): boolean {
  try {
    format(tz);
    return true;
  } catch {
    return false;
  }
}

export interface ZoneParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The parts as Intl reads them (the reference the fast path is held to). */
export function intlZoneParts(ms: number, tz: string): ZoneParts {
  const out: Record<string, number> = {};
  for (const p of format(tz).formatToParts(new Date(ms)))
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out as unknown as ZoneParts;
}

/** How far the wall clock is ahead of UTC (whole seconds: offsets are), read with Intl. */
function intlOffsetMs(ms: number, tz: string): number {
  const p = intlZoneParts(ms, tz);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000;
}

const HOUR_MS = 3_600_000;
/** Per zone and UTC hour: the offset, or NaN when it changes within the hour. */
const hourly = new Map<string, Map<number, number>>();
const HOURS_KEPT = 200_000;

/** How far the zone's wall clock is ahead of UTC at that instant, in milliseconds. */
export function zoneOffsetMs(ms: number, tz: string): number {
  const hour = Math.floor(ms / HOUR_MS);
  let m = hourly.get(tz);
  if (!m) hourly.set(tz, (m = new Map()));
  let offset = m.get(hour);
  if (offset === undefined) {
    const first = intlOffsetMs(hour * HOUR_MS, tz);
    // Offsets change on whole seconds, so the hour's last second shows a change within it.
    offset = first === intlOffsetMs(hour * HOUR_MS + HOUR_MS - 1000, tz) ? first : Number.NaN;
    if (m.size >= HOURS_KEPT) m.clear();
    m.set(hour, offset);
  }
  return Number.isNaN(offset) ? intlOffsetMs(ms, tz) : offset;
}

export function zoneParts(ms: number, tz: string): ZoneParts {
  const local = new Date(Math.floor(ms / 1000) * 1000 + zoneOffsetMs(ms, tz));
  return {
    year: local.getUTCFullYear(),
    month: local.getUTCMonth() + 1,
    day: local.getUTCDate(),
    hour: local.getUTCHours(),
    minute: local.getUTCMinutes(),
    second: local.getUTCSeconds(),
  };
}

/** Minutes east of UTC of the zone at that instant. */
export function zoneOffsetMinutes(ms: number, tz: string): number {
  return Math.round(zoneOffsetMs(ms, tz) / 60_000);
}
