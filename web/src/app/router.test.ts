import { describe, expect, it } from 'vitest';
import { backHref, backKind, footerVisible, isNativeApp, matchRoute, menuItems } from './router';

const MENU = ['prematch', 'live', 'today', 'esports', 'virtualsports', 'casino', 'live-casino'];

describe('sport routes (spec 000 section 2)', () => {
  it('matches the list shapes of each section', () => {
    expect(matchRoute('/prematch', MENU)).toEqual({ page: 'sport', section: 'prematch' });
    expect(matchRoute('/prematch/Soccer', MENU)).toEqual({ page: 'sport', section: 'prematch', sportAlias: 'Soccer' });
    expect(matchRoute('/prematch/Soccer/England/1002', MENU)).toEqual({
      page: 'sport', section: 'prematch', sportAlias: 'Soccer', regionAlias: 'England', competitionId: 1002,
    });
    expect(matchRoute('/today/Soccer/England/1002', MENU)).toMatchObject({ page: 'sport', section: 'today', competitionId: 1002 });
    expect(matchRoute('/live/Basketball', MENU)).toEqual({ page: 'sport', section: 'live', sportAlias: 'Basketball' });
    expect(matchRoute('/virtualsports/VirtualFootball', MENU)).toMatchObject({ section: 'virtualsports', sportAlias: 'VirtualFootball' });
    expect(matchRoute('/esports/live/CounterStrike', MENU)).toEqual({
      page: 'sport', section: 'esports', esportsType: 'live', sportAlias: 'CounterStrike',
    });
  });

  it('matches every game detail path', () => {
    expect(matchRoute('/game/7', MENU)).toEqual({ page: 'game', section: 'game', gameId: 7 });
    expect(matchRoute('/prematch/game/7', MENU)).toEqual({ page: 'game', section: 'prematch', gameId: 7 });
    expect(matchRoute('/today/game/7', MENU)).toEqual({ page: 'game', section: 'today', gameId: 7 });
    expect(matchRoute('/live/game/7', MENU)).toEqual({ page: 'game', section: 'live', gameId: 7 });
    expect(matchRoute('/virtualsports/game/7', MENU)).toEqual({ page: 'game', section: 'virtualsports', gameId: 7 });
    expect(matchRoute('/esports/live/game/7', MENU)).toEqual({ page: 'game', section: 'esports', gameId: 7, esportsType: 'live' });
  });

  it('falls back for malformed paths', () => {
    for (const path of ['/game/abc', '/live/Soccer/England/1', '/prematch/Soccer/England', '/prematch/Soccer/England/x',
      '/prematch/game/1/2', '/esports/nope', '/nowhere', '/scores/x'])
      expect(matchRoute(path, MENU), path).toEqual({ page: 'notFound' });
  });

  it('gives every /backoffice path to the back office, which reads the rest itself', () => {
    for (const p of ['/backoffice', '/backoffice/queue', '/backoffice/queue/12', '/backoffice/audit/3'])
      expect(matchRoute(p, ['prematch']), p).toEqual({ page: 'backoffice' });
  });

  it('matches scores', () => {
    expect(matchRoute('/scores', MENU)).toEqual({ page: 'scores' });
    expect(matchRoute('/scores/12', MENU)).toEqual({ page: 'scores', id: 12 });
  });
});

describe('main menu order rules', () => {
  it('opens only configured sections, but esports, virtualsports and today always', () => {
    const menu = ['prematch'];
    expect(matchRoute('/live', menu)).toEqual({ page: 'notFound' });
    expect(matchRoute('/live/game/3', menu)).toEqual({ page: 'notFound' });
    expect(matchRoute('/prematch', menu)).toMatchObject({ page: 'sport' });
    for (const always of ['/today', '/esports', '/virtualsports']) expect(matchRoute(always, menu)).toMatchObject({ page: 'sport' });
    expect(matchRoute('/casino', menu)).toEqual({ page: 'notFound' });
    expect(matchRoute('/casino', MENU)).toEqual({ page: 'casino', section: 'casino' });
  });

  it('shows the configured order, beginning prematch, live, and appends the always-allowed sections', () => {
    expect(menuItems(MENU)).toEqual(MENU);
    expect(menuItems(['prematch', 'live'])).toEqual(['prematch', 'live', 'today', 'esports', 'virtualsports']);
    expect(menuItems(['live', 'esports', 'prematch'])).toEqual(['live', 'esports', 'prematch', 'today', 'virtualsports']);
  });
});

describe('header back targets (spec 001 section 2.3)', () => {
  it('has the logo variant only on the home page', () => {
    expect(backKind('/')).toBeNull();
  });

  it('goes back to sport, home or the user centre by first segment', () => {
    for (const p of ['/game/1', '/live', '/prematch/Soccer', '/today', '/esports', '/virtualsports']) expect(backKind(p), p).toBe('sport');
    for (const p of ['/scores', '/news', '/messages', '/helpcenter', '/hallofhonor', '/specialty', '/thirdparty/x', '/usercenter', '/preferential'])
      expect(backKind(p), p).toBe('home');
    for (const p of ['/betdata', '/fortunecenter', '/recommendedgift', '/history/bets', '/setting/changelogin'])
      expect(backKind(p), p).toBe('usercenter');
  });

  it('steps up one sport level', () => {
    expect(backHref('/live/game/9')).toBe('/live');
    expect(backHref('/game/9')).toBe('/prematch');
    expect(backHref('/prematch/Soccer/England/1002')).toBe('/prematch/Soccer');
    expect(backHref('/prematch/Soccer')).toBe('/prematch');
    expect(backHref('/prematch')).toBe('/');
    expect(backHref('/esports/live/game/4')).toBe('/esports/live');
    expect(backHref('/scores/3')).toBe('/');
    expect(backHref('/setting/changelogin')).toBe('/usercenter');
  });
});

describe('footer rules', () => {
  it('is hidden on the listed paths, under /thirdparty/ and in native-app mode', () => {
    expect(footerVisible('/', false)).toBe(true);
    expect(footerVisible('/live', false)).toBe(true);
    for (const p of ['/helpcenter', '/nextSeason', '/downpage', '/s5season', '/s4season', '/seasonMission', '/seasonMissionEn',
      '/prematchTokyo', '/s1SeasonEn', '/thirdparty/pg'])
      expect(footerVisible(p, false), p).toBe(false);
    expect(footerVisible('/live', true)).toBe(false);
  });

  it('reads native-app mode from ?isRNApp=true', () => {
    expect(isNativeApp('?isRNApp=true')).toBe(true);
    expect(isNativeApp('?isRNApp=false')).toBe(false);
    expect(isNativeApp('')).toBe(false);
  });
});

describe('content routes (spec 001 section 2.1)', () => {
  const menu = ['prematch', 'live'];
  it('matches /news, /news/{id}, /helpcenter, /downpage and the help pages', () => {
    expect(matchRoute('/news', menu)).toEqual({ page: 'news' });
    expect(matchRoute('/news/12', menu)).toEqual({ page: 'newsDetail', id: 12 });
    expect(matchRoute('/news/abc', menu)).toEqual({ page: 'notFound' });
    expect(matchRoute('/helpcenter', menu)).toEqual({ page: 'helpcenter' });
    expect(matchRoute('/downpage', menu)).toEqual({ page: 'downpage' });
    expect(matchRoute('/page/help-root-eng/general-terms-and-conditions', menu))
      .toEqual({ page: 'helpPage', lang: 'eng', slug: 'general-terms-and-conditions' });
    expect(matchRoute('/page/help-root-eng/a/b', menu)).toEqual({ page: 'notFound' });
    expect(matchRoute('/page/other-eng/x', menu)).toEqual({ page: 'notFound' });
  });
  it('hides the footer on /helpcenter and /downpage', () => {
    expect(footerVisible('/helpcenter', false)).toBe(false);
    expect(footerVisible('/downpage', false)).toBe(false);
  });
});
