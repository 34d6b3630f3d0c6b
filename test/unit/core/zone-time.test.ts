import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../../src/core/random.js';
import { intlZoneParts, zoneOffsetMinutes, zoneParts } from '../../../src/core/zone-time.js';

// Zones with daylight saving north and south, half- and quarter-hour offsets, a 30-minute change
// (Lord Howe), a zone that changed its standard offset (Samoa skipped 2011-12-30) and UTC.
const ZONES = [
  'America/New_York',
  'Europe/London',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Pacific/Apia',
  'Asia/Kolkata',
  'UTC',
];

/** Minutes east of UTC as Intl reads them (not the cached offsets under test). */
function intlMinutes(ms: number, tz: string): number {
  const p = intlZoneParts(ms, tz);
  return Math.round(
    (Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000) /
      60_000,
  );
}

test('the parts are the ones Intl reads, at random instants and at each second around each change', () => {
  const r = seededRandom('zones');
  const from = Date.UTC(1990, 0, 1);
  const to = Date.UTC(2040, 0, 1);
  for (const tz of ZONES) {
    for (let i = 0; i < 2000; i++) {
      const ms = from + Math.floor(r.next() * (to - from));
      assert.deepEqual(zoneParts(ms, tz), intlZoneParts(ms, tz), `${tz} at ${new Date(ms).toISOString()}`);
    }
    // Each change of offset between 2010 and 2030: the minutes on either side, second by second.
    const changes: number[] = [];
    for (let day = Date.UTC(2010, 0, 1); day < Date.UTC(2030, 0, 1); day += 86_400_000) {
      if (intlMinutes(day, tz) === intlMinutes(day + 86_400_000, tz)) continue;
      for (let hour = day; hour < day + 86_400_000; hour += 3_600_000)
        if (intlMinutes(hour, tz) !== intlMinutes(hour + 3_600_000, tz)) changes.push(hour);
    }
    if (tz !== 'UTC' && tz !== 'Asia/Kolkata' && tz !== 'Asia/Kathmandu') assert.ok(changes.length >= 20, tz);
    for (const hour of changes) {
      // The change itself (found by halving), then each second of the two minutes around it.
      let [lo, hi] = [hour, hour + 3_600_000];
      while (hi - lo > 1000) {
        const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
        if (intlMinutes(mid, tz) === intlMinutes(lo, tz)) lo = mid;
        else hi = mid;
      }
      for (let ms = hi - 60_000; ms <= hi + 60_000; ms += 1000)
        assert.deepEqual(zoneParts(ms, tz), intlZoneParts(ms, tz), `${tz} at ${new Date(ms).toISOString()}`);
      for (let ms = hour; ms <= hour + 3_600_000; ms += 60_000 + 7)
        assert.deepEqual(zoneParts(ms, tz), intlZoneParts(ms, tz), `${tz} at ${new Date(ms).toISOString()}`);
    }
  }
});

test('offsets in minutes east of UTC', () => {
  assert.equal(zoneOffsetMinutes(Date.UTC(2026, 0, 5), 'America/New_York'), -300);
  assert.equal(zoneOffsetMinutes(Date.UTC(2026, 6, 5), 'America/New_York'), -240);
  assert.equal(zoneOffsetMinutes(Date.UTC(2026, 0, 5), 'Asia/Kathmandu'), 345);
  assert.equal(zoneOffsetMinutes(Date.UTC(2026, 0, 5), 'UTC'), 0);
});
