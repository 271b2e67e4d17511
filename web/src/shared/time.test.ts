import { describe, expect, it } from 'vitest';
import { dayKey, formatDateTime, presetRange, setDisplayLanguage, startText, timeZoneFor, zoneDayRange, zoneLabel } from './time';

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

describe('date presets of spec 000 section 9, by days of the language zone', () => {
  // 01:00 on 2026-11-25 in Bangkok (18:00 UTC on the 24th): Bangkok's today is the 25th, UTC's the 24th
  const now = new Date(Date.UTC(2026, 10, 24, 18, 0));
  const bkk = (d: number, month = 10) => Date.UTC(2026, month, d - 1, 17, 0) / 1000; // Bangkok midnight of day d

  it('runs today, yesterday, the last 2 and 3 days, a week and a month up to the next Bangkok midnight', () => {
    expect(presetRange('today', now, 'eng')).toEqual({ from: bkk(25), to: bkk(26) });
    expect(presetRange('yesterday', now, 'tha')).toEqual({ from: bkk(24), to: bkk(25) });
    expect(presetRange('last2', now, 'eng')).toEqual({ from: bkk(24), to: bkk(26) });
    expect(presetRange('last3', now, 'eng')).toEqual({ from: bkk(23), to: bkk(26) });
    expect(presetRange('week', now, 'eng')).toEqual({ from: bkk(19), to: bkk(26) });
    expect(presetRange('month', now, 'eng')).toEqual({ from: bkk(25, 9), to: bkk(26) });
  });

  it('counts China days for zhh', () => {
    expect(presetRange('today', now, 'zhh')).toEqual({ from: Date.UTC(2026, 10, 24, 16) / 1000, to: Date.UTC(2026, 10, 25, 16) / 1000 });
  });

  it('names the zone in the caption', () => {
    expect(zoneLabel('eng', now)).toBe('GMT+7');
    expect(zoneLabel('zhh', now)).toBe('GMT+8');
  });
});

describe('date and time of records (payments, VIP ledger)', () => {
  it("writes YYYY-MM-DD HH:mm in the member's zone, whatever the device zone", () => {
    const ms = Date.UTC(2026, 10, 24, 17, 30);
    expect(formatDateTime(ms, 'eng')).toBe('2026-11-25 00:30');
    expect(formatDateTime(ms, 'zhh')).toBe('2026-11-25 01:30');
    expect(formatDateTime(ms)).toBe('2026-11-25 00:30'); // before a language: Bangkok
    setDisplayLanguage('zhh');
    expect(formatDateTime(ms)).toBe('2026-11-25 01:30');
    setDisplayLanguage(null);
  });
});
