import { describe, expect, it } from 'vitest';
import { dayKey, startText, timeZoneFor, zoneDayRange } from './time';

// 2026-11-24 17:30 UTC: 00:30 on the 25th in Bangkok (UTC+7), 01:30 on the 25th in Shanghai (UTC+8)
const TS = Date.UTC(2026, 10, 24, 17, 30) / 1000;

describe('times in the spec default zone (Asia/Bangkok for non-zhh languages)', () => {
  it('picks the zone by language', () => {
    expect(timeZoneFor('eng')).toBe('Asia/Bangkok');
    expect(timeZoneFor('tha')).toBe('Asia/Bangkok');
    expect(timeZoneFor('zhh')).toBe('Asia/Shanghai');
    expect(timeZoneFor(null)).toBe('Asia/Bangkok');
  });

  it('shows a start time in Bangkok whatever the device zone', () => {
    const sameDay = new Date(Date.UTC(2026, 10, 24, 20, 0)); // 03:00 on the 25th in Bangkok
    expect(startText(TS, 'eng', sameDay)).toBe('00:30');
    expect(startText(TS, 'zhh', sameDay)).toBe('01:30');
    const dayBefore = new Date(Date.UTC(2026, 10, 24, 10, 0)); // 17:00 on the 24th in Bangkok
    expect(startText(TS, 'eng', dayBefore)).toBe('25/11 00:30');
    expect(startText(TS, 'zhh', dayBefore)).toBe('11/25 01:30');
  });

  it('counts days in the zone', () => {
    expect(dayKey(new Date(TS * 1000), 'eng')).toBe('2026-11-25');
    expect(dayKey(new Date(TS * 1000 - 3 * 3600_000), 'tha')).toBe('2026-11-24');
  });
});

describe("today's range in the zone", () => {
  it('runs from the zone midnight to the next', () => {
    const now = new Date(Date.UTC(2026, 10, 24, 18, 0)); // 01:00 on the 25th in Bangkok, 02:00 in Shanghai
    expect(zoneDayRange(now, 'eng')).toEqual({ '@gte': Date.UTC(2026, 10, 24, 17, 0) / 1000, '@lt': Date.UTC(2026, 10, 25, 17, 0) / 1000 });
    expect(zoneDayRange(now, 'zhh')).toEqual({ '@gte': Date.UTC(2026, 10, 24, 16, 0) / 1000, '@lt': Date.UTC(2026, 10, 25, 16, 0) / 1000 });
    const evening = new Date(Date.UTC(2026, 10, 24, 16, 30)); // 23:30 on the 24th in Bangkok
    expect(zoneDayRange(evening, 'tha')['@gte']).toBe(Date.UTC(2026, 10, 23, 17, 0) / 1000);
  });
});
