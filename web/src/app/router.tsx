/**
 * A minimal path router on the History API (spec 000 section 2, spec 001 section 2.1):
 * route matching, back targets and the footer rules are pure functions, tested in
 * router.test.ts. Scrolls to the top (300 ms) on every path change.
 */
import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { isSeasonPath } from '../features/seasons/model';

const listeners = new Set<() => void>();

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

export const usePathname = () => useSyncExternalStore(subscribe, () => window.location.pathname);

/** Scroll-to-top duration on a path change (spec section 2). */
export const SCROLL_TOP_MS = 300;

/** Eases the window to the top in `ms` (smooth scrolling has no set duration). */
export function scrollToTop(ms = SCROLL_TOP_MS) {
  const start = window.scrollY;
  if (start <= 0) return;
  if (typeof requestAnimationFrame === 'undefined' || ms <= 0) return window.scrollTo(0, 0);
  const t0 = performance.now();
  const step = (now: number) => {
    const p = Math.min(1, (now - t0) / ms);
    window.scrollTo(0, Math.round(start * (1 - (1 - (1 - p) ** 3))));
    if (p < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}

/** Goes to `to`; `replace` swaps the current history entry (a redirect the back button should skip). */
export function navigate(to: string, { replace = false } = {}) {
  if (to === window.location.pathname + window.location.search) return;
  const keep = isNativeApp() && !to.includes('?') ? '?isRNApp=true' : '';
  if (replace) window.history.replaceState(null, '', to + keep);
  else window.history.pushState(null, '', to + keep);
  listeners.forEach((listener) => listener());
}

/** Native-app webview mode (?isRNApp=true): no header, footer or banner (spec section 1). */
export const isNativeApp = (search = window.location.search) => new URLSearchParams(search).get('isRNApp') === 'true';

/** Runs scrollToTop after every path change (mounted once by the App). */
export function useScrollTopOnPathChange() {
  const pathname = usePathname();
  useEffect(() => {
    scrollToTop();
  }, [pathname]);
}

export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}

/** Sections reachable even when not in main_menu_order (spec section 2). */
export const ALWAYS_ALLOWED = ['today', 'esports', 'virtualsports'];
/** Sport sections with list pages. */
export const SPORT_SECTIONS = ['prematch', 'today', 'live', 'esports', 'virtualsports'] as const;
export type SportSection = (typeof SPORT_SECTIONS)[number];

/** The main menu as shown: the configured order, keeping the always-allowed sections (spec section 2). */
export function menuItems(menu: readonly string[]): string[] {
  const items = [...menu];
  for (const section of ALWAYS_ALLOWED) if (!items.includes(section)) items.push(section);
  return items;
}

const sectionAllowed = (section: string, menu: readonly string[]) =>
  menu.includes(section) || ALWAYS_ALLOWED.includes(section);

/** Account pages under /setting/ (spec 001 section 2.1) that exist so far. */
export const SETTING_PAGES = [
  'changenickname', 'changelogin', 'changetrade', 'setsecurity', 'phonebind', 'mailbind', 'changerealname',
] as const;
export type SettingPage = (typeof SETTING_PAGES)[number];

export type Route =
  | { page: 'home' }
  | { page: 'section'; section: string }
  | { page: 'sport'; section: SportSection; esportsType?: string; sportAlias?: string; regionAlias?: string; competitionId?: number }
  | { page: 'game'; section: SportSection | 'game'; gameId: number; esportsType?: string }
  | { page: 'scores'; id?: number }
  | { page: 'setting'; name: SettingPage }
  | { page: 'usercenter' }
  | { page: 'userinfo' }
  | { page: 'historyBets' }
  | { page: 'historyBet'; id: string }
  | { page: 'backoffice' }
  | { page: 'messages' }
  | { page: 'news' }
  | { page: 'newsDetail'; id: number }
  | { page: 'helpcenter' }
  | { page: 'helpPage'; lang: string; slug: string }
  | { page: 'downpage' }
  | { page: 'honor'; sub: 'main' | 'growup' | 'mbdetails' | 'newhonor' }
  | { page: 'casino'; section: string; type?: string }
  | { page: 'season'; path: string }
  | { page: 'homeTeam' }
  | { page: 'payments'; name: PaymentPage }
  | { page: 'notFound' };

/** Casino pages (features/casino): path segment to catalogue section, and the third-party game types. */
const CASINO_PATHS: Record<string, string> = {
  casino: 'casino', 'live-casino': 'live-casino', thirdparty: 'thirdparty', PPSlots: 'ppslots', catmin: 'catmin', specialty: 'specialty',
};
export const THIRD_PARTY_TYPES = ['4', '6', '8', '8pb', '9', '12'];

/** /casino and /live-casino open only when the main menu names them (spec 001 section 2.1). */
function matchCasino(first: string, second: string | undefined, more: number, menu: readonly string[]): Route | null {
  const section = CASINO_PATHS[first];
  if (!section) return null;
  if ((first === 'casino' || first === 'live-casino') && !menu.includes(first)) return { page: 'notFound' };
  if (more > 0) return { page: 'notFound' };
  if (!second) return section === 'thirdparty' ? { page: 'notFound' } : { page: 'casino', section };
  if ((section === 'thirdparty' || section === 'specialty') && THIRD_PARTY_TYPES.includes(second)) {
    return { page: 'casino', section, type: second };
  }
  return { page: 'notFound' };
}

/** Payment pages under /usercenter and /fortunecenter (spec 001 section 2.1). */
export const USERCENTER_PAYMENT_PAGES = ['deposit', 'depositprogress', 'withdraw', 'transfer', 'monthlyCard'] as const;
export const WITHDRAW_PAGES = ['managebankcard', 'manageusdt', 'addbankcard', 'addusdt', 'withdrawprogress', 'submitwithdraw'] as const;
export const FORTUNE_PAGES = ['reportcenter', 'flowreport'] as const;
export type PaymentPage =
  | (typeof USERCENTER_PAYMENT_PAGES)[number] | (typeof WITHDRAW_PAGES)[number] | (typeof FORTUNE_PAGES)[number] | 'fortunecenter';

function matchPayments(first: string, second: string | undefined, rest: string[]): Route | null {
  if (first === 'fortunecenter') {
    if (!second) return { page: 'payments', name: 'fortunecenter' };
    const name = FORTUNE_PAGES.find((p) => p === second);
    return name && rest.length === 0 ? { page: 'payments', name } : { page: 'notFound' };
  }
  if (first !== 'usercenter') return null;
  const name = USERCENTER_PAYMENT_PAGES.find((p) => p === second);
  if (!name) return null;
  if (rest.length === 0) return { page: 'payments', name };
  const sub = WITHDRAW_PAGES.find((p) => p === rest[0]);
  return name === 'withdraw' && sub && rest.length === 1 ? { page: 'payments', name: sub } : { page: 'notFound' };
}

export function matchRoute(pathname: string, menu: readonly string[]): Route {
  const [first, second, ...rest] = pathname.split('/').filter(Boolean);
  if (!first) return { page: 'home' };
  // the staff back office has its own screens and paths (features/backoffice/roles.ts)
  if (first === 'backoffice') return { page: 'backoffice' };
  const casino = matchCasino(first, second, rest.length, menu);
  if (casino) return casino;
  // season pages share one template (features/seasons); the home-team chooser
  if (!second && isSeasonPath(first)) return { page: 'season', path: `/${first}` };
  if (first === 'hometeam' && !second) return { page: 'homeTeam' };
  if (first === 'setting') {
    const name = SETTING_PAGES.find((p) => p === second);
    return name && rest.length === 0 ? { page: 'setting', name } : { page: 'notFound' };
  }
  const payments = matchPayments(first, second, rest);
  if (payments) return payments;
  if (first === 'usercenter') {
    if (!second) return { page: 'usercenter' };
    return second === 'userinfo' && rest.length === 0 ? { page: 'userinfo' } : { page: 'notFound' };
  }
  if (first === 'history') {
    if (second === 'bets' && rest.length === 0) return { page: 'historyBets' };
    if (second === 'bet' && rest.length === 1 && /^[\w-]+$/.test(rest[0]!)) return { page: 'historyBet', id: rest[0]! };
    return { page: 'notFound' };
  }
  if (first === 'messages') return second ? { page: 'notFound' } : { page: 'messages' };
  const content = matchContent(first, second, rest);
  if (content) return content;
  if (first === 'hallofhonor') {
    if (!second) return { page: 'honor', sub: 'main' };
    const sub = (['growup', 'mbdetails', 'newhonor'] as const).find((s) => s === second);
    return sub && rest.length === 0 ? { page: 'honor', sub } : { page: 'notFound' };
  }
  if (first === 'scores') {
    if (!second) return { page: 'scores' };
    const id = toId(second);
    return id && rest.length === 0 ? { page: 'scores', id } : { page: 'notFound' };
  }
  if (first === 'game') {
    const gameId = toId(second);
    return gameId && rest.length === 0 ? { page: 'game', section: 'game', gameId } : { page: 'notFound' };
  }
  if ((SPORT_SECTIONS as readonly string[]).includes(first)) {
    if (!sectionAllowed(first, menu)) return { page: 'notFound' };
    return matchSport(first as SportSection, [second, ...rest].filter((s): s is string => Boolean(s)));
  }
  if (sectionAllowed(first, menu)) return { page: 'section', section: first };
  return { page: 'notFound' };
}

/** News, help and the download page (spec 001 section 2.1; features/content). */
function matchContent(first: string, second: string | undefined, rest: string[]): Route | null {
  if (first === 'news') {
    if (!second) return { page: 'news' };
    const id = toId(second);
    return id && rest.length === 0 ? { page: 'newsDetail', id } : { page: 'notFound' };
  }
  if (first === 'helpcenter') return second ? { page: 'notFound' } : { page: 'helpcenter' };
  if (first === 'downpage') return second ? { page: 'notFound' } : { page: 'downpage' };
  if (first === 'page') {
    const lang = second?.startsWith('help-root-') ? second.slice('help-root-'.length) : '';
    const slug = rest[0] ?? '';
    if (/^[a-z]{2,8}$/.test(lang) && rest.length === 1 && /^[\w-]{1,64}$/.test(slug)) return { page: 'helpPage', lang, slug };
    return { page: 'notFound' };
  }
  return null;
}

const toId = (text: string | undefined) => (text && /^\d+$/.test(text) ? Number(text) : null);

/** Everything after the section segment. */
function matchSport(section: SportSection, parts: string[]): Route {
  const notFound: Route = { page: 'notFound' };
  let esportsType: string | undefined;
  if (section === 'esports' && parts.length > 0) {
    esportsType = parts.shift();
    if (!esportsType || !ESPORTS_TYPES.includes(esportsType)) return notFound;
  }
  const extra = esportsType ? { esportsType } : {};
  if (parts[0] === 'game') {
    const gameId = toId(parts[1]);
    return gameId && parts.length === 2 ? { page: 'game', section, gameId, ...extra } : notFound;
  }
  const [sportAlias, regionAlias, competition, ...more] = parts;
  if (more.length > 0) return notFound;
  if (section === 'live' || section === 'virtualsports' || section === 'esports') {
    // live, virtual and esports lists stop at the sport (spec section 2)
    if (regionAlias) return notFound;
  }
  if (regionAlias && !competition) return notFound;
  const competitionId = competition ? toId(competition) : undefined;
  if (competitionId === null) return notFound;
  return {
    page: 'sport', section, ...extra,
    ...(sportAlias ? { sportAlias } : {}),
    ...(regionAlias ? { regionAlias } : {}),
    ...(competitionId ? { competitionId } : {}),
  };
}

/** /esports/{esportsType}: which games of the esports. */
export const ESPORTS_TYPES = ['prematch', 'live', 'today'];

/** First path segments with a "back to" target (spec 001 section 2.3). */
const BACK_TO_SPORT = ['game', 'live', 'prematch', 'today', 'esports', 'virtualsports'];
const BACK_TO_HOME = ['scores', 'news', 'messages', 'helpcenter', 'hallofhonor', 'specialty', 'thirdparty', 'usercenter', 'preferential'];
const BACK_TO_USERCENTER = ['betdata', 'fortunecenter', 'recommendedgift', 'history', 'setting'];

export type BackKind = 'sport' | 'home' | 'usercenter';

/** Which back target a path has; null on the home page (logo variant). */
export function backKind(pathname: string): BackKind | null {
  const first = pathname.split('/').filter(Boolean)[0];
  if (!first) return null;
  if (BACK_TO_SPORT.includes(first)) return 'sport';
  if (BACK_TO_USERCENTER.includes(first)) return 'usercenter';
  if (BACK_TO_HOME.includes(first)) return 'home';
  return 'home';
}

/**
 * Where the back arrow goes. Sport pages step up one level: a game to its section's list,
 * a competition to its sport, a sport to its section, a section home.
 */
export function backHref(pathname: string): string {
  const kind = backKind(pathname);
  if (kind === 'usercenter') return '/usercenter';
  if (kind !== 'sport') return '/';
  const parts = pathname.split('/').filter(Boolean);
  const [section] = parts;
  if (section === 'game') return '/prematch';
  const gameAt = parts.indexOf('game');
  if (gameAt > 0) return '/' + parts.slice(0, gameAt).join('/');
  if (section === 'esports' && parts.length >= 2) return '/' + parts.slice(0, parts.length - 1).join('/');
  if (parts.length === 4) return `/${parts[0]}/${parts[1]}`;
  if (parts.length === 2) return `/${parts[0]}`;
  return '/';
}

/** Paths without a footer (spec section 2); native-app mode hides it as well. */
const NO_FOOTER = ['/helpcenter', '/nextSeason', '/downpage', '/s5season', '/s4season', '/seasonMission',
  '/seasonMissionEn', '/prematchTokyo', '/s1SeasonEn'];

export function footerVisible(pathname: string, nativeApp: boolean): boolean {
  if (nativeApp) return false;
  if (pathname.startsWith('/thirdparty/')) return false;
  return !NO_FOOTER.includes(pathname.replace(/\/+$/, '') || '/');
}
