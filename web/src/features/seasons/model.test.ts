import { describe, expect, it } from 'vitest';
import { addressComplete, bannerDays, isSeasonPath, rankClaimSteps, seasonOfPath, taskButton, type SeasonRef } from './model';
import { seasonNotStarted, seasonRefusal } from './pageRules';

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

  it('a page of a later season than the running one, or than the last ended one off-season, has not started', () => {
    const ref = (seasonid: number): SeasonRef => ({ seasonid, name: `Season ${seasonid}`, starttime: '', endtime: '', start_ms: 0, end_ms: 0 });
    const running = { status: 'season' as const, seasonid: 3 };
    expect(seasonNotStarted(4, running)).toBe(true);
    expect(seasonNotStarted(6, running)).toBe(true);
    expect(seasonNotStarted(3, running)).toBe(false);
    expect(seasonNotStarted(1, running)).toBe(false);
    const between = { status: 'off-season' as const, seasonid: 0, previous: ref(3), next: ref(4) };
    expect(seasonNotStarted(4, between)).toBe(true);
    expect(seasonNotStarted(3, between)).toBe(false);
    const beforeTheFirst = { status: 'off-season' as const, seasonid: 0, previous: null, next: ref(1) };
    expect(seasonNotStarted(1, beforeTheFirst)).toBe(true);
    // no season named (/seasonMission, /{brand}Season) or the calendar not loaded yet
    expect(seasonNotStarted(undefined, running)).toBe(false);
    expect(seasonNotStarted(5, null)).toBe(false);
  });

  it('season refusals have language-file keys, with the figure, reason or sport the server text carries', () => {
    expect(seasonRefusal(-64001, 'The task is not completed yet')).toEqual({ key: 'season.error.-64001', args: [] });
    expect(seasonRefusal(-64003, 'Not eligible: you need more than 10 active days this season')).toEqual({ key: 'season.error.-64003', args: ['10'] });
    expect(seasonRefusal(-64003, 'odd')).toBeNull();
    expect(seasonRefusal(-64007, 'The claim was rejected: duplicate account')).toEqual({ key: 'season.error.-64007', args: ['duplicate account'] });
    expect(seasonRefusal(-64010, 'The home basketball team can only be selected once per season')?.key).toBe('season.error.-64010_basketball');
    expect(seasonRefusal(-64010, 'The home football team can only be selected once per season')?.key).toBe('season.error.-64010');
    for (const code of [-64002, -64004, -64005, -64020, -64021, -64022, -64023, -64024]) expect(seasonRefusal(code)?.key).toBe(`season.error.${code}`);
    expect(seasonRefusal(-66666, 'Please wait 3 seconds')).toBeNull();
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

describe('the rank reward claim steps (S1ReciveOne, S1ReciveTwo)', () => {
  it('asks size then address for a physical prize, nothing for cash alone', () => {
    expect(rankClaimSteps({ clothes: 1, mouse: 0 })).toEqual(['one', 'two']);
    expect(rankClaimSteps({ clothes: 0, mouse: 1 })).toEqual(['one', 'two']);
    expect(rankClaimSteps({ clothes: 0, mouse: 0 })).toEqual([]);
  });

  it('needs every address part, each at most 100 characters', () => {
    const full = { consignee: 'Zhang San', phone: '13100131000', province: 'GD', city: 'SZ', district: 'NS', address: 'Road 1' };
    expect(addressComplete(full)).toBe(true);
    expect(addressComplete({ ...full, city: '  ' })).toBe(false);
    expect(addressComplete({ ...full, address: 'x'.repeat(101) })).toBe(false);
    expect(addressComplete(null)).toBe(false);
  });
});
