/**
 * When a runtime popup shows (spec 001 sections 3, 4 and 9): to guests, members or all;
 * never again once shown ('never'), or again after a day (86,400 s), a week (604,800 s),
 * a month (2,592,000 s) or custom minutes x 60. The last-shown time is remembered per
 * browser (localStorage). Pure: the caller passes the clock and the stored times.
 */
export type Audience = 'guests' | 'members' | 'all';
export type Repeat = 'never' | 'daily' | 'weekly' | 'monthly' | 'custom';

export interface RuntimePopup {
  id: number;
  title: string;
  style?: 'message' | 'template' | 'iframe';
  content?: string;
  url?: string;
  img?: string;
  link?: string;
  audience: Audience;
  repeat: Repeat;
  minutes?: number;
}

/** The repeat interval in seconds; 0: shown once, never again. */
export function repeatSeconds(repeat: Repeat, minutes = 0): number {
  switch (repeat) {
    case 'daily': return 86_400;
    case 'weekly': return 604_800;
    case 'monthly': return 2_592_000;
    case 'custom': return minutes > 0 ? Math.floor(minutes) * 60 : 0;
    default: return 0;
  }
}

export function audienceMatches(audience: Audience, loggedIn: boolean): boolean {
  if (audience === 'all') return true;
  return audience === 'members' ? loggedIn : !loggedIn;
}

/** Whether `popup` is due now, given when it was last shown in this browser (ms, or undefined). */
export function popupDue(popup: Pick<RuntimePopup, 'audience' | 'repeat' | 'minutes'>, loggedIn: boolean, lastShownMs: number | undefined, nowMs: number): boolean {
  if (!audienceMatches(popup.audience, loggedIn)) return false;
  if (lastShownMs === undefined || !Number.isFinite(lastShownMs)) return true;
  const every = repeatSeconds(popup.repeat, popup.minutes);
  if (every === 0) return false;
  return nowMs - lastShownMs >= every * 1000;
}

/** The first popup due, if any. */
export function nextPopup<P extends RuntimePopup>(list: readonly P[], loggedIn: boolean, shown: Record<string, number>, nowMs: number): P | null {
  return list.find((p) => popupDue(p, loggedIn, shown[String(p.id)], nowMs)) ?? null;
}

/** The cover popup is fetched at most once an hour (spec 001 section 9). */
export const COVER_INTERVAL_MS = 3_600_000;
export const coverDue = (lastFetchedMs: number | undefined, nowMs: number) =>
  lastFetchedMs === undefined || !Number.isFinite(lastFetchedMs) || nowMs - lastFetchedMs >= COVER_INTERVAL_MS;

/** The download-app banner hides after 60 s (spec 001 section 9). */
export const DOWNLOAD_BANNER_MS = 60_000;

const SHOWN_KEY = 'popupsShown';
const COVER_KEY = 'coverFetched';

export function readShown(storage: Pick<Storage, 'getItem'> = localStorage): Record<string, number> {
  try {
    const value = JSON.parse(storage.getItem(SHOWN_KEY) ?? '{}') as unknown;
    if (!value || typeof value !== 'object') return {};
    return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'number')) as Record<string, number>;
  } catch {
    return {};
  }
}

export function rememberShown(id: number, nowMs: number, storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage) {
  const shown = readShown(storage);
  shown[String(id)] = nowMs;
  try { storage.setItem(SHOWN_KEY, JSON.stringify(shown)); } catch { /* private mode: shown again next time */ }
}

export function readCoverFetched(storage: Pick<Storage, 'getItem'> = localStorage): number | undefined {
  const v = Number(storage.getItem(COVER_KEY));
  return storage.getItem(COVER_KEY) === null || !Number.isFinite(v) ? undefined : v;
}

export function rememberCoverFetched(nowMs: number, storage: Pick<Storage, 'setItem'> = localStorage) {
  try { storage.setItem(COVER_KEY, String(nowMs)); } catch { /* ignore */ }
}
