/**
 * Navigation on react-router (spec 000 section 2, spec 001 section 2.1). The route table is
 * app/routes.ts (one react-router config); the browser router is built in app/AppRouter.tsx.
 * The helpers here keep their names for feature code: `navigate` (also from sagas, through
 * the mounted data router), `Link`, `usePathname`; they fall back to the History API when no
 * router is mounted (unit tests of a single screen). Back targets and the footer rules are
 * pure functions, tested in router.test.ts. Scrolls to the top (300 ms) on every path change.
 */
import { useEffect, useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';
import { Link as RouterLink, useInRouterContext } from 'react-router';
import { ALWAYS_ALLOWED } from './routes';

export {
  ALWAYS_ALLOWED, ESPORTS_TYPES, FORTUNE_PAGES, SETTING_PAGES, SPORT_SECTIONS, THIRD_PARTY_TYPES, USERCENTER_PAYMENT_PAGES,
  WITHDRAW_PAGES, matchRoute,
} from './routes';
export type { PaymentPage, Route, SettingPage, SportSection } from './routes';

type Navigate = (to: string, options?: { replace?: boolean }) => void | Promise<void>;
let active: Navigate | null = null;
const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());

/** The mounted router's navigate function (app/AppRouter.tsx), set on every location change; null when none is mounted. */
export function setActiveNavigate(navigate: Navigate | null) {
  active = navigate;
  notify();
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/** The current path: the router's committed location (window.location follows it), inside or outside a router. */
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

/** Native-app webview mode (?isRNApp=true): no header, footer or banner (spec section 1). */
export const isNativeApp = (search = window.location.search) => new URLSearchParams(search).get('isRNApp') === 'true';

/** Native-app mode keeps its ?isRNApp=true flag on every path it goes to. */
const withNativeFlag = (to: string) => (isNativeApp() && !to.includes('?') ? `${to}?isRNApp=true` : to);

/** Goes to `to`; `replace` swaps the current history entry (a redirect the back button should skip). */
export function navigate(to: string, { replace = false } = {}) {
  if (to === window.location.pathname + window.location.search) return;
  if (active) {
    void active(withNativeFlag(to), { replace });
    return;
  }
  if (replace) window.history.replaceState(null, '', withNativeFlag(to));
  else window.history.pushState(null, '', withNativeFlag(to));
  notify();
}

/** Runs scrollToTop after every path change (mounted once by the member shell). */
export function useScrollTopOnPathChange() {
  const pathname = usePathname();
  useEffect(() => {
    scrollToTop();
  }, [pathname]);
}

/** A link: react-router's inside the router, a History API anchor outside one (single-screen tests). */
export function Link({ href, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  const inRouter = useInRouterContext();
  if (inRouter) return <RouterLink to={withNativeFlag(href)} onClick={onClick} {...rest} />;
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={handle} {...rest} />;
}

/** The main menu as shown: the configured order, keeping the always-allowed sections (spec section 2). */
export function menuItems(menu: readonly string[]): string[] {
  const items = [...menu];
  for (const section of ALWAYS_ALLOWED) if (!items.includes(section)) items.push(section);
  return items;
}

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
