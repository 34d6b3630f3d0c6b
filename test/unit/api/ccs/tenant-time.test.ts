import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isTimeZone,
  isoLocal,
  isoZoned,
  parseLocal,
  tenantTimestamp,
} from '../../../../src/api/ccs/tenant-time.js';

const NY = 'America/New_York';

test('tenant timestamps use 12-hour text with AM/PM in the tenant zone', () => {
  assert.equal(tenantTimestamp(Date.UTC(2026, 0, 1, 8, 0, 0), NY), '2026-01-01 03:00:00 AM');
  assert.equal(tenantTimestamp(Date.UTC(2026, 0, 1, 17, 5, 9), NY), '2026-01-01 12:05:09 PM');
  assert.equal(tenantTimestamp(Date.UTC(2026, 0, 1, 5, 0, 0), NY), '2026-01-01 12:00:00 AM');
  assert.equal(tenantTimestamp(Date.UTC(2026, 0, 1, 23, 30, 0), 'UTC'), '2026-01-01 11:30:00 PM');
});

test('ISO times: local without offset, zoned with the offset in force (daylight saving included)', () => {
  const winter = Date.UTC(2026, 0, 5, 9, 0, 10);
  const summer = Date.UTC(2026, 6, 5, 9, 0, 10);
  assert.equal(isoLocal(winter, NY), '2026-01-05T04:00:10');
  assert.equal(isoZoned(winter, NY), '2026-01-05T04:00:10-05:00');
  assert.equal(isoZoned(summer, NY), '2026-07-05T05:00:10-04:00');
  assert.equal(isoZoned(winter, 'UTC'), '2026-01-05T09:00:10+00:00');
  assert.equal(isoZoned(winter, 'Asia/Kolkata'), '2026-01-05T14:30:10+05:30');
});

test('local date-times are read in the given zone', () => {
  assert.equal(parseLocal('2026-01-05T04:00:10', NY), Date.UTC(2026, 0, 5, 9, 0, 10));
  assert.equal(parseLocal('2026-07-05T05:00:10', NY), Date.UTC(2026, 6, 5, 9, 0, 10));
  assert.equal(parseLocal('2026-01-05T09:00:10', 'UTC'), Date.UTC(2026, 0, 5, 9, 0, 10));
  assert.equal(parseLocal('2026-02-30T00:00:00', 'UTC'), null);
  assert.equal(parseLocal('yesterday', 'UTC'), null);
  assert.equal(isTimeZone('Europe/Paris'), true);
  assert.equal(isTimeZone('Mars/Olympus'), false);
});
