/** Contact-center time formats, in a tenant's (or a request's) IANA time zone. */

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

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function parts(ms: number, tz: string): Parts {
  const out: Record<string, number> = {};
  for (const p of format(tz).formatToParts(new Date(ms)))
    if (p.type !== 'literal') out[p.type] = Number(p.value);
  return out as unknown as Parts;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Minutes east of UTC of the zone at that instant. */
function offsetMinutes(ms: number, tz: string): number {
  const p = parts(ms, tz);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** `2026-01-05T04:00:10`: ISO 8601 local date-time without offset. */
export function isoLocal(ms: number, tz: string): string {
  const p = parts(ms, tz);
  return `${p.year}-${two(p.month)}-${two(p.day)}T${two(p.hour)}:${two(p.minute)}:${two(p.second)}`;
}

/** `2026-01-05T04:00:10-05:00`: ISO 8601 with the zone's UTC offset. */
export function isoZoned(ms: number, tz: string): string {
  const off = offsetMinutes(ms, tz);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${isoLocal(ms, tz)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** `2026-01-05 04:00:10 AM`: the tenant timestamp text. */
export function tenantTimestamp(ms: number, tz: string): string {
  const p = parts(ms, tz);
  const h12 = p.hour % 12 === 0 ? 12 : p.hour % 12;
  return `${p.year}-${two(p.month)}-${two(p.day)} ${two(h12)}:${two(p.minute)}:${two(p.second)} ${p.hour < 12 ? 'AM' : 'PM'}`;
}

/** `YYYY-MM-DDThh:mm:ss` read as a local time of the zone; null when malformed. */
export function parseLocal(text: string, tz: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((v) => Number(v ?? 0));
  const asUtc = Date.UTC(y, mo - 1, d, h, mi, s);
  const check = new Date(asUtc);
  if (check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return null;
  // Two passes settle the offset, also next to a daylight-saving change.
  let ms = asUtc - offsetMinutes(asUtc, tz) * 60_000;
  ms = asUtc - offsetMinutes(ms, tz) * 60_000;
  return ms;
}
