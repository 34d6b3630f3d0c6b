/** Time formats shared by both APIs. Pure functions over milliseconds. */

/** ISO 8601 duration, e.g. PT1M5.250S; PT0S for zero. */
export function isoDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const sMs = total % 60_000;
  let out = 'PT';
  if (h) out += `${h}H`;
  if (m) out += `${m}M`;
  if (sMs || (!h && !m)) {
    const s = sMs / 1000;
    out += `${Number.isInteger(s) ? s : s.toFixed(3).replace(/0+$/, '')}S`;
  }
  return out;
}

/** `hours:minutes:seconds` with at least two digits each; hours may exceed two digits. */
export function hms(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/**
 * The clock times around `now` within which `hms(t - since)` reads as it does at `now`: from the
 * start of its second to the start of the next (`until` excluded).
 */
export function hmsSteady(since: number, now: number): { from: number; until: number } {
  const from = since + Math.floor((now - since) / 1000) * 1000;
  return { from, until: from + 1000 };
}

/** ISO 8601 with an explicit offset (UTC, `+00:00`). */
export function isoWithOffset(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+00:00');
}
