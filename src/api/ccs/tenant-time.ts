/** Contact-center time formats, in a tenant's (or a request's) IANA time zone. */
import { isTimeZone, zoneOffsetMinutes as offsetMinutes, zoneParts as parts } from '../../core/zone-time.js';

export { isTimeZone };

const two = (n: number) => String(n).padStart(2, '0');

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
