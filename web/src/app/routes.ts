/**
 * The route table of spec 001 section 2.1 (and spec 000 section 2), as one react-router
 * route config. Each entry names the path pattern, the feature chunk that draws it
 * (`screen`, loaded lazily by app/AppRouter.tsx) and how its parameters resolve to a
 * `Route` (the props of the screen), or to the fallback page when a parameter is out of
 * range or the section is not in the configured main menu. `matchRoute` runs react-router's
 * own matcher over the same table, so what the tests check is what the browser renders.
 */
import { matchRoutes, type Params, type RouteObject } from 'react-router';
import { isSeasonPath } from '../features/seasons/model';
import { CAMPAIGN_PATHS, PROMO_LISTS, PROMO_PAGES, matchPromo, type PromoRoute } from '../features/promo/model';

/** Sections reachable even when not in main_menu_order (spec section 2). */
export const ALWAYS_ALLOWED = ['today', 'esports', 'virtualsports'];
/** Sport sections with list pages. */
export const SPORT_SECTIONS = ['prematch', 'today', 'live', 'esports', 'virtualsports'] as const;
export type SportSection = (typeof SPORT_SECTIONS)[number];
/** /esports/{esportsType}: which games of the esports. */
export const ESPORTS_TYPES = ['prematch', 'live', 'today'];

/** Account pages under /setting/ (spec 001 section 2.1). */
export const SETTING_PAGES = [
  'changenickname', 'changelogin', 'changetrade', 'setsecurity', 'phonebind', 'mailbind', 'changerealname',
  'untiedphone', 'untiedmail', 'chosewayset', 'mybirth', 'emailadress',
  // safer gambling (DESIGN.md "Responsible gambling"): limits, time-out, self-exclusion, statement, identity
  'safergambling',
] as const;
export type SettingPage = (typeof SETTING_PAGES)[number];
/** /setting/changeloginsteps/{changetype}: how the member proves who they are (docs/client.md). */
export const LOGIN_WAYS = ['phone', 'email', 'question'] as const;
export type LoginWay = (typeof LOGIN_WAYS)[number];
/** /setting/safecertificate/{changetype}: the secured item the check opens. */
export const CERTIFIED_ITEMS = ['phone', 'email'] as const;
export type CertifiedItem = (typeof CERTIFIED_ITEMS)[number];

/** Payment pages under /usercenter and /fortunecenter (spec 001 section 2.1). */
export const USERCENTER_PAYMENT_PAGES = ['deposit', 'depositprogress', 'withdraw', 'transfer', 'monthlyCard'] as const;
export const WITHDRAW_PAGES = ['managebankcard', 'manageusdt', 'addbankcard', 'addusdt', 'withdrawprogress', 'submitwithdraw'] as const;
export const FORTUNE_PAGES = ['reportcenter', 'flowreport'] as const;
export type PaymentPage =
  | (typeof USERCENTER_PAYMENT_PAGES)[number] | (typeof WITHDRAW_PAGES)[number] | (typeof FORTUNE_PAGES)[number] | 'fortunecenter'
  | 'usdthelp';

/** Third-party game types (spec 000 section 9). */
export const THIRD_PARTY_TYPES = ['4', '6', '8', '8pb', '9', '12'];

export type Route =
  | { page: 'home' }
  | { page: 'section'; section: string }
  | { page: 'sport'; section: SportSection; esportsType?: string; sportAlias?: string; regionAlias?: string; competitionId?: number }
  | { page: 'game'; section: SportSection | 'game'; gameId: number; esportsType?: string }
  | { page: 'scores'; id?: number }
  | { page: 'setting'; name: SettingPage }
  | { page: 'loginSteps'; way: LoginWay }
  | { page: 'safeCertificate'; item: CertifiedItem }
  | { page: 'usercenter' }
  | { page: 'userinfo' }
  | { page: 'historyBets' }
  | { page: 'historyBet'; id: string }
  | { page: 'betdata' }
  | { page: 'special'; name: string }
  | { page: 'backoffice' }
  | { page: 'messages' }
  | { page: 'honor'; sub: 'main' | 'growup' | 'mbdetails' | 'newhonor' }
  | { page: 'casino'; section: string; type?: string }
  | { page: 'season'; path: string }
  | { page: 'homeTeam' }
  | { page: 'payments'; name: PaymentPage }
  | { page: 'promo'; route: PromoRoute }
  | { page: 'news' }
  | { page: 'newsDetail'; id: number }
  | { page: 'helpcenter' }
  | { page: 'helpPage'; lang: string; slug: string }
  | { page: 'downpage' }
  | { page: 'notFound' };

/** The lazily loaded feature chunk that draws a route ('fallback': the 'Page not found' page, in the entry chunk). */
export type Screen =
  | 'home' | 'sport' | 'account' | 'history' | 'messages' | 'vip' | 'casino' | 'seasons' | 'payments' | 'promo' | 'content' | 'backoffice' | 'fallback';

export interface RouteSpec {
  path: string;
  screen: Screen;
  resolve: (params: Params, menu: readonly string[]) => Route;
}

const NOT_FOUND: Route = { page: 'notFound' };
const toId = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : null);
const sectionAllowed = (section: string, menu: readonly string[]) =>
  menu.includes(section) || ALWAYS_ALLOWED.includes(section);
const fixed = (path: string, screen: Screen, route: Route): RouteSpec => ({ path, screen, resolve: () => route });
/** A parameter numbering `names` from 1 (out of range: the fallback page). */
const numbered = <T extends string>(path: string, names: readonly T[], route: (name: T) => Route): RouteSpec => ({
  path, screen: 'account', resolve: (params) => {
    const name = names[Number(params.changetype) - 1];
    return name && /^\d$/.test(params.changetype ?? '') ? route(name) : NOT_FOUND;
  },
});
/** Spec paths without a screen in this product: the fallback page, on purpose. */
const fallback = (path: string): RouteSpec => ({ path, screen: 'fallback', resolve: () => NOT_FOUND });

/** The sport list and game shapes of one section (spec 000 section 2). */
function sportRoutes(section: SportSection): RouteSpec[] {
  const base = section === 'esports' ? '/esports/:esportsType' : `/${section}`;
  const open = (params: Params, menu: readonly string[], route: () => Route): Route => {
    if (!sectionAllowed(section, menu)) return NOT_FOUND;
    if (section === 'esports' && params.esportsType !== undefined && !ESPORTS_TYPES.includes(params.esportsType)) return NOT_FOUND;
    return route();
  };
  const extra = (params: Params) => (params.esportsType ? { esportsType: params.esportsType } : {});
  const list = (params: Params, menu: readonly string[]): Route => open(params, menu, () => {
    if (params.sportAlias === 'game') return NOT_FOUND; // /{section}/game without an id
    const competitionId = params.competitionId === undefined ? undefined : toId(params.competitionId);
    if (competitionId === null) return NOT_FOUND;
    return {
      page: 'sport', section, ...extra(params),
      ...(params.sportAlias ? { sportAlias: params.sportAlias } : {}),
      ...(params.regionAlias ? { regionAlias: params.regionAlias } : {}),
      ...(competitionId ? { competitionId } : {}),
    };
  });
  const routes: RouteSpec[] = [
    { path: base, screen: 'sport', resolve: list },
    { path: `${base}/:sportAlias`, screen: 'sport', resolve: list },
    {
      path: `${base}/game/:gameId`, screen: 'sport', resolve: (params, menu) => open(params, menu, () => {
        const gameId = toId(params.gameId);
        return gameId ? { page: 'game', section, gameId, ...extra(params) } : NOT_FOUND;
      }),
    },
  ];
  if (section === 'esports') routes.unshift({ path: '/esports', screen: 'sport', resolve: list });
  // live, virtual and esports lists stop at the sport; prematch and today go down to a competition
  if (section === 'prematch' || section === 'today') {
    routes.push({ path: `${base}/:sportAlias/:regionAlias/:competitionId`, screen: 'sport', resolve: list });
  }
  return routes;
}

/** /casino and /live-casino open only when the main menu names them (spec 001 section 2.1). */
const casino = (path: string, section: string, menuGuard = false): RouteSpec => ({
  path, screen: 'casino',
  resolve: (_params, menu) => (menuGuard && !menu.includes(section) ? NOT_FOUND : { page: 'casino', section }),
});
const casinoType = (path: string, section: string): RouteSpec => ({
  path, screen: 'casino',
  resolve: (params) => (params.type && THIRD_PARTY_TYPES.includes(params.type) ? { page: 'casino', section, type: params.type } : NOT_FOUND),
});

/** Every path of spec 001 section 2.1, one entry per shape; anything else is the fallback page. */
export const ROUTE_TABLE: RouteSpec[] = [
  fixed('/', 'home', { page: 'home' }),
  {
    path: '/game/:gameId', screen: 'sport',
    resolve: (params) => {
      const gameId = toId(params.gameId);
      return gameId ? { page: 'game', section: 'game', gameId } : NOT_FOUND;
    },
  },
  ...SPORT_SECTIONS.flatMap(sportRoutes),
  fixed('/scores', 'sport', { page: 'scores' }),
  {
    path: '/scores/:id', screen: 'sport',
    resolve: (params) => {
      const id = toId(params.id);
      return id ? { page: 'scores', id } : NOT_FOUND;
    },
  },
  // casino and third-party games (features/casino)
  casino('/casino', 'casino', true),
  casino('/live-casino', 'live-casino', true),
  casino('/PPSlots', 'ppslots'),
  casino('/catmin', 'catmin'),
  casino('/specialty', 'specialty'),
  casinoType('/specialty/:type', 'specialty'),
  casinoType('/thirdparty/:type', 'thirdparty'),
  casino('/demo', 'demo'),
  // messages and user centre
  fixed('/messages', 'messages', { page: 'messages' }),
  fixed('/usercenter', 'account', { page: 'usercenter' }),
  fixed('/usercenter/userinfo', 'account', { page: 'userinfo' }),
  ...USERCENTER_PAYMENT_PAGES.map((name) => fixed(`/usercenter/${name}`, 'payments', { page: 'payments', name })),
  ...WITHDRAW_PAGES.map((name) => fixed(`/usercenter/withdraw/${name}`, 'payments', { page: 'payments', name })),
  fixed('/fortunecenter', 'payments', { page: 'payments', name: 'fortunecenter' }),
  fixed('/usdthelp', 'payments', { page: 'payments', name: 'usdthelp' }),
  ...FORTUNE_PAGES.map((name) => fixed(`/fortunecenter/${name}`, 'payments', { page: 'payments', name })),
  // settings
  ...SETTING_PAGES.map((name) => fixed(`/setting/${name}`, 'account', { page: 'setting', name })),
  // {changetype} is 1, 2, 3 (phone, e-mail, security question) and 1, 2 (phone, e-mail)
  numbered('/setting/changeloginsteps/:changetype', LOGIN_WAYS, (way) => ({ page: 'loginSteps', way })),
  numbered('/setting/safecertificate/:changetype', CERTIFIED_ITEMS, (item) => ({ page: 'safeCertificate', item })),
  // honor, history
  fixed('/hallofhonor', 'vip', { page: 'honor', sub: 'main' }),
  ...(['growup', 'mbdetails', 'newhonor'] as const).map((sub) => fixed(`/hallofhonor/${sub}`, 'vip', { page: 'honor', sub })),
  fixed('/history/bets', 'history', { page: 'historyBets' }),
  fixed('/betdata', 'history', { page: 'betdata' }),
  {
    path: '/history/bet/:id', screen: 'history',
    resolve: (params) => (params.id && /^[\w-]+$/.test(params.id) ? { page: 'historyBet', id: params.id } : NOT_FOUND),
  },
  // seasons: the home-team chooser; season pages by name (/{brand}Season ...) under the one-segment route below
  fixed('/hometeam', 'seasons', { page: 'homeTeam' }),
  // the staff back office reads the rest of its path itself (features/backoffice/roles.ts)
  fixed('/backoffice/*', 'backoffice', { page: 'backoffice' }),
  // promotions (features/promo): campaign lists, named campaign pages and /promo/{news} on one template,
  // tasks and sign-in, the prize draw, the shop, referrals
  {
    path: '/promo/:news', screen: 'promo',
    resolve: (params) => {
      const route = matchPromo('promo', params.news, 0);
      return route ? { page: 'promo', route } : NOT_FOUND;
    },
  },
  ...[...PROMO_LISTS, ...CAMPAIGN_PATHS, ...PROMO_PAGES].map((name): RouteSpec => ({
    path: `/${name}`, screen: 'promo',
    resolve: () => {
      const route = matchPromo(name, undefined, 0);
      return route ? { page: 'promo', route } : NOT_FOUND;
    },
  })),
  // news, help pages and the download page (features/content)
  fixed('/news', 'content', { page: 'news' }),
  {
    path: '/news/:id', screen: 'content',
    resolve: (params) => {
      const id = toId(params.id);
      return id ? { page: 'newsDetail', id } : NOT_FOUND;
    },
  },
  fixed('/helpcenter', 'content', { page: 'helpcenter' }),
  {
    path: '/page/:helpRoot/:title', screen: 'content',
    resolve: (params) => {
      const root = params.helpRoot ?? '';
      const lang = root.startsWith('help-root-') ? root.slice('help-root-'.length) : '';
      const slug = params.title ?? '';
      return /^[a-z]{2,8}$/.test(lang) && /^[\w-]{1,64}$/.test(slug) ? { page: 'helpPage', lang, slug } : NOT_FOUND;
    },
  },
  fixed('/downpage', 'content', { page: 'downpage' }),
  fixed('/prematchTokyo', 'sport', { page: 'special', name: 'prematchTokyo' }),
  // the old version's link (spec 001 section 2.1): no old version here, the fallback page
  fallback('/old/*'),
  {
    // one segment: a season page, a configured main-menu section without a screen, or nothing
    path: '/:segment', screen: 'seasons',
    resolve: (params, menu) => {
      const segment = params.segment ?? '';
      if (isSeasonPath(segment)) return { page: 'season', path: `/${segment}` };
      if (sectionAllowed(segment, menu)) return { page: 'section', section: segment };
      return NOT_FOUND;
    },
  },
  fallback('*'),
];

/** The table as react-router route objects (matching is case-sensitive, as the spec's paths are). */
export const MATCH_ROUTES: (RouteObject & { handle: RouteSpec })[] = ROUTE_TABLE.map((spec) => ({
  path: spec.path, caseSensitive: true, handle: spec,
}));

/** The spec entry a path matches (react-router's ranking) and its parameters. */
export function matchSpec(pathname: string): { spec: RouteSpec; params: Params } {
  const matches = matchRoutes(MATCH_ROUTES, pathname);
  const leaf = matches?.[matches.length - 1];
  if (!leaf) return { spec: ROUTE_TABLE[ROUTE_TABLE.length - 1]!, params: {} };
  return { spec: (leaf.route as { handle: RouteSpec }).handle, params: leaf.params };
}

/** What a path shows, given the configured main menu. */
export function matchRoute(pathname: string, menu: readonly string[]): Route {
  const { spec, params } = matchSpec(pathname);
  return spec.resolve(params, menu);
}
