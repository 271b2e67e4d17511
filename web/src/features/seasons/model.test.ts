import { describe, expect, it } from 'vitest';
import { bannerDays, isSeasonPath, seasonOfPath, taskButton } from './model';

describe('season pages', () => {
  it('matches the named and brand-prefixed season routes only', () => {
    for (const p of ['seasonMission', 'seasonMissionEn', 's1SeasonEn', 's2Report', 'JadeSportsSeason', 'JadeSportsSeasonMissions']) {
      expect(isSeasonPath(p)).toBe(true);
    }
    expect(isSeasonPath('usercenter')).toBe(false);
    expect(isSeasonPath('Season')).toBe(false);
  });

  it('report pages show their own season', () => {
    expect(seasonOfPath('/s2Report')).toEqual({ seasonId: 2, report: true });
    expect(seasonOfPath('/seasonMission')).toEqual({ seasonId: undefined, report: false });
  });

  it('task buttons: undone is Not eligible, claimable receives, else Received', () => {
    expect(taskButton(0)).toEqual({ key: 'season.not_eligible', enabled: false });
    expect(taskButton(1)).toEqual({ key: 'season.receive', enabled: true });
    expect(taskButton(2)).toEqual({ key: 'season.received', enabled: false });
    expect(taskButton(3).enabled).toBe(false);
  });

  it('the banner shows only in a started season with at least one day left', () => {
    const day = 86_400_000;
    const info = { status: 'season' as const, start_ms: 0, end_ms: 10 * day };
    expect(bannerDays(info, 2 * day)).toBe(8);
    expect(bannerDays(info, 9.5 * day)).toBeNull();
    expect(bannerDays({ ...info, end_ms: 0 }, day)).toBeNull();
    expect(bannerDays({ status: 'off-season' }, day)).toBeNull();
    expect(bannerDays(info, -1)).toBeNull();
  });
});
