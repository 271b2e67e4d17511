import { describe, expect, it } from 'vitest';
import { ROUTE_TABLE, matchRoute, matchSpec, type Route } from './routes';

/** Every section in the configured main menu (conf.json order plus the casino sections). */
const MENU = ['prematch', 'live', 'today', 'esports', 'virtualsports', 'casino', 'live-casino'];
const NOT_FOUND: Route = { page: 'notFound' };

/**
 * Spec 001 section 2.1, path by path (a sample value in each {parameter}), and what it shows:
 * a screen, or the fallback page on purpose (a parameter out of range, or the old version's link).
 */
const SPEC_ROUTES: Array<[path: string, shows: Route]> = [
  // home and sport
  ['/', { page: 'home' }],
  ['/game/7', { page: 'game', section: 'game', gameId: 7 }],
  ['/esports/live/game/7', { page: 'game', section: 'esports', gameId: 7, esportsType: 'live' }],
  ['/virtualsports/game/7', { page: 'game', section: 'virtualsports', gameId: 7 }],
  ['/prematch/game/7', { page: 'game', section: 'prematch', gameId: 7 }],
  ['/today/game/7', { page: 'game', section: 'today', gameId: 7 }],
  ['/live/game/7', { page: 'game', section: 'live', gameId: 7 }],
  ['/live', { page: 'sport', section: 'live' }],
  ['/live/Soccer', { page: 'sport', section: 'live', sportAlias: 'Soccer' }],
  ['/prematch', { page: 'sport', section: 'prematch' }],
  ['/prematch/Soccer', { page: 'sport', section: 'prematch', sportAlias: 'Soccer' }],
  ['/prematch/Soccer/England/1002', { page: 'sport', section: 'prematch', sportAlias: 'Soccer', regionAlias: 'England', competitionId: 1002 }],
  ['/today', { page: 'sport', section: 'today' }],
  ['/today/Soccer', { page: 'sport', section: 'today', sportAlias: 'Soccer' }],
  ['/today/Soccer/England/1002', { page: 'sport', section: 'today', sportAlias: 'Soccer', regionAlias: 'England', competitionId: 1002 }],
  ['/esports', { page: 'sport', section: 'esports' }],
  ['/esports/prematch', { page: 'sport', section: 'esports', esportsType: 'prematch' }],
  ['/esports/live/CounterStrike', { page: 'sport', section: 'esports', esportsType: 'live', sportAlias: 'CounterStrike' }],
  ['/virtualsports', { page: 'sport', section: 'virtualsports' }],
  ['/virtualsports/VirtualFootball', { page: 'sport', section: 'virtualsports', sportAlias: 'VirtualFootball' }],
  ['/casino', { page: 'casino', section: 'casino' }],
  ['/live-casino', { page: 'casino', section: 'live-casino' }],
  ['/promo/news', { page: 'promo', route: { name: 'campaign', slug: 'news' } }],
  // messages and user centre
  ['/messages', { page: 'messages' }],
  ['/usercenter', { page: 'usercenter' }],
  ['/usercenter/deposit', { page: 'payments', name: 'deposit' }],
  ['/usercenter/depositprogress', { page: 'payments', name: 'depositprogress' }],
  ['/usercenter/withdraw', { page: 'payments', name: 'withdraw' }],
  ...(['managebankcard', 'manageusdt', 'addbankcard', 'addusdt', 'withdrawprogress', 'submitwithdraw'] as const)
    .map((name): [string, Route] => [`/usercenter/withdraw/${name}`, { page: 'payments', name }]),
  ['/usercenter/transfer', { page: 'payments', name: 'transfer' }],
  ['/usercenter/userinfo', { page: 'userinfo' }],
  ['/usercenter/monthlyCard', { page: 'payments', name: 'monthlyCard' }],
  ['/fortunecenter', { page: 'payments', name: 'fortunecenter' }],
  ['/fortunecenter/reportcenter', { page: 'payments', name: 'reportcenter' }],
  ['/fortunecenter/flowreport', { page: 'payments', name: 'flowreport' }],
  // settings
  ['/setting/changelogin', { page: 'setting', name: 'changelogin' }],
  ['/setting/changeloginsteps/1', { page: 'loginSteps', way: 'phone' }],
  ['/setting/changeloginsteps/2', { page: 'loginSteps', way: 'email' }],
  ['/setting/changeloginsteps/3', { page: 'loginSteps', way: 'question' }],
  ['/setting/changeloginsteps/4', NOT_FOUND],
  ['/setting/changeloginsteps/01', NOT_FOUND],
  ['/setting/changetrade', { page: 'setting', name: 'changetrade' }],
  ['/setting/safecertificate/1', { page: 'safeCertificate', item: 'phone' }],
  ['/setting/safecertificate/2', { page: 'safeCertificate', item: 'email' }],
  ['/setting/safecertificate/3', NOT_FOUND],
  ['/setting/phonebind', { page: 'setting', name: 'phonebind' }],
  ['/setting/untiedphone', { page: 'setting', name: 'untiedphone' }],
  ['/setting/mailbind', { page: 'setting', name: 'mailbind' }],
  ['/setting/untiedmail', { page: 'setting', name: 'untiedmail' }],
  ['/setting/setsecurity', { page: 'setting', name: 'setsecurity' }],
  ['/setting/chosewayset', { page: 'setting', name: 'chosewayset' }],
  ['/setting/changenickname', { page: 'setting', name: 'changenickname' }],
  ['/setting/changerealname', { page: 'setting', name: 'changerealname' }],
  ['/setting/mybirth', { page: 'setting', name: 'mybirth' }],
  ['/setting/emailadress', { page: 'setting', name: 'emailadress' }],
  ['/setting/safergambling', { page: 'setting', name: 'safergambling' }],
  // honor, news, scores and others
  ['/hallofhonor', { page: 'honor', sub: 'main' }],
  ['/hallofhonor/growup', { page: 'honor', sub: 'growup' }],
  ['/hallofhonor/mbdetails', { page: 'honor', sub: 'mbdetails' }],
  ['/hallofhonor/newhonor', { page: 'honor', sub: 'newhonor' }],
  ['/news', { page: 'news' }],
  ['/news/3', { page: 'newsDetail', id: 3 }],
  ['/scores', { page: 'scores' }],
  ['/scores/12', { page: 'scores', id: 12 }],
  ['/betdata', { page: 'betdata' }],
  ['/recommendedgift', { page: 'promo', route: { name: 'recommendedgift' } }],
  ['/helpcenter', { page: 'helpcenter' }],
  ['/catmin', { page: 'casino', section: 'catmin' }],
  ['/PPSlots', { page: 'casino', section: 'ppslots' }],
  ['/specialty', { page: 'casino', section: 'specialty' }],
  ['/specialty/4', { page: 'casino', section: 'specialty', type: '4' }],
  ['/demo', { page: 'casino', section: 'demo' }],
  ['/history/bets', { page: 'historyBets' }],
  ['/history/bet/abc-1', { page: 'historyBet', id: 'abc-1' }],
  ['/thirdparty/8pb', { page: 'casino', section: 'thirdparty', type: '8pb' }],
  ['/novicetask', { page: 'promo', route: { name: 'novicetask' } }],
  ['/downpage', { page: 'downpage' }],
  ['/prematchTokyo', { page: 'special', name: 'prematchTokyo' }],
  ['/page/help-root-eng/terms', { page: 'helpPage', lang: 'eng', slug: 'terms' }],
  ['/old/', NOT_FOUND],
  // promotions: the lists, the named campaign pages (one template), pages of this product
  ['/preferential', { page: 'promo', route: { name: 'list' } }],
  ['/preferentialin', { page: 'promo', route: { name: 'list' } }],
  ...['actione', 'actitwo', 'acti3', 'acti4', 'europeanCup2021', 'europeanCupShare', 'europeanCup11People',
    'actithree', 'actifour', 'actifive', 'actisix', 'saveMoney', 'backWater', 'usdtDeposit', 'newDeposit2025']
    .map((slug): [string, Route] => [`/${slug}`, { page: 'promo', route: { name: 'campaign', slug } }]),
  ['/prizedraw', { page: 'promo', route: { name: 'prizedraw' } }],
  ['/shop', { page: 'promo', route: { name: 'shop' } }],
  // seasons
  ['/s1SeasonEn', { page: 'season', path: '/s1SeasonEn' }],
  ['/seasonMissionEn', { page: 'season', path: '/seasonMissionEn' }],
  ...['s1Report', 's2Report', 's3Report', 's4season', 's5season', 'nextSeason', 'seasonMission', 'nextSeasonThird', 's6Season',
    's6seasonMission', 'S2022season', 'S2022seasonMission', 'JadeSeason', 'JadeSeasonMissions']
    .map((name): [string, Route] => [`/${name}`, { page: 'season', path: `/${name}` }]),
  ['/usdthelp', { page: 'payments', name: 'usdthelp' }],
  ['/hometeam', { page: 'homeTeam' }],
  // the staff back office (DESIGN.md), and any other path
  ['/backoffice/queue/12', { page: 'backoffice' }],
  ['/no/such/page', NOT_FOUND],
];

describe('the route table of spec 001 section 2.1', () => {
  it.each(SPEC_ROUTES)('%s resolves on purpose', (path, shows) => {
    expect(matchRoute(path, MENU)).toEqual(shows);
  });

  it('draws the fallback page for a spec path only through a fallback entry or a parameter out of range', () => {
    for (const [path, shows] of SPEC_ROUTES) {
      const { spec } = matchSpec(path);
      if (spec.screen === 'fallback') expect(shows, path).toEqual(NOT_FOUND);
      else if (shows.page !== 'notFound') expect(spec.path, path).not.toBe('*');
    }
  });

  it('has no entry that no spec path reaches', () => {
    const reached = new Set(SPEC_ROUTES.map(([path]) => matchSpec(path).spec.path));
    for (const spec of ROUTE_TABLE) expect(reached.has(spec.path), spec.path).toBe(true);
  });

  it('closes the sections the main menu does not name, but today, esports and virtualsports', () => {
    expect(matchRoute('/live/game/7', ['prematch'])).toEqual(NOT_FOUND);
    expect(matchRoute('/casino', ['prematch'])).toEqual(NOT_FOUND);
    expect(matchRoute('/esports/live/game/7', [])).toMatchObject({ page: 'game' });
  });

  it('matches case-sensitively, as the spec writes its paths', () => {
    expect(matchRoute('/ppslots', MENU)).toEqual(NOT_FOUND);
    expect(matchRoute('/MESSAGES', MENU)).toEqual(NOT_FOUND);
  });
});
