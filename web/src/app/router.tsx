/**
 * A minimal path router on the History API: enough for the shell's routes until
 * the sportsbook pages arrive (spec section 2). Scrolls to top on every change.
 */
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

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

export function navigate(to: string) {
  if (to === window.location.pathname) return;
  window.history.pushState(null, '', to);
  listeners.forEach((listener) => listener());
  window.scrollTo({ top: 0, behavior: 'smooth' });
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
const ALWAYS_ALLOWED = ['today', 'esports', 'virtualsports'];

/** Account pages under /setting/ (spec 001 section 2.1) that exist so far. */
export const SETTING_PAGES = [
  'changenickname', 'changelogin', 'changetrade', 'setsecurity', 'phonebind', 'mailbind', 'changerealname',
] as const;
export type SettingPage = (typeof SETTING_PAGES)[number];

export type Route =
  | { page: 'home' }
  | { page: 'section'; section: string }
  | { page: 'setting'; name: SettingPage }
  | { page: 'usercenter' }
  | { page: 'userinfo' }
  | { page: 'notFound' };

export function matchRoute(pathname: string, menu: readonly string[]): Route {
  const [first, second, ...rest] = pathname.split('/').filter(Boolean);
  if (!first) return { page: 'home' };
  if (first === 'setting') {
    const name = SETTING_PAGES.find((p) => p === second);
    return name && rest.length === 0 ? { page: 'setting', name } : { page: 'notFound' };
  }
  if (first === 'usercenter') {
    if (!second) return { page: 'usercenter' };
    return second === 'userinfo' && rest.length === 0 ? { page: 'userinfo' } : { page: 'notFound' };
  }
  if (menu.includes(first) || ALWAYS_ALLOWED.includes(first)) return { page: 'section', section: first };
  return { page: 'notFound' };
}
