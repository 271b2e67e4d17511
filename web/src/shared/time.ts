/**
 * Times shown to a member (spec 000 section 9), on dayjs with its utc and timezone plugins:
 * the default time zone is Asia/Bangkok for every language but zhh, which shows China time
 * (Asia/Shanghai). Start times, bet dates, "today" lists and the date presets go through
 * here, so they read the same whatever the device's own zone is.
 */
import dayjs, { type Dayjs } from 'dayjs';
import timezone from 'dayjs/plugin/timezone';
import utc from 'dayjs/plugin/utc';

dayjs.extend(utc);
dayjs.extend(timezone);

export const BANGKOK = 'Asia/Bangkok';
export const CHINA = 'Asia/Shanghai';

const LOCALE: Record<string, string> = { zhh: 'zh-CN', eng: 'en-GB', tha: 'th-TH' };

export const timeZoneFor = (lang: string | null | undefined) => (lang === 'zhh' ? CHINA : BANGKOK);
export const localeFor = (lang: string | null | undefined) => LOCALE[lang ?? ''] ?? 'en-GB';

let displayLanguage: string | null = null;
/** The language the member reads (set when its file loads): the zone of times formatted without one. */
export const setDisplayLanguage = (lang: string | null) => {
  displayLanguage = lang;
};

/** `date` in the language's zone. */
export const inZone = (date: Date | number, lang: string | null | undefined): Dayjs => dayjs(date).tz(timeZoneFor(lang));

/** The calendar day of `date` in the language's zone, 'YYYY-MM-DD'. */
export function dayKey(date: Date, lang: string | null | undefined): string {
  return inZone(date, lang).format('YYYY-MM-DD');
}

/** 'YYYY-MM-DD HH:mm' in the zone of `lang` (default: the language the member reads). */
export function formatDateTime(ms: number, lang: string | null | undefined = displayLanguage): string {
  return inZone(ms, lang).format('YYYY-MM-DD HH:mm');
}

/** Day and month as each language writes them (zh-CN month first; en-GB and th-TH day first). */
const DAY_MONTH: Record<string, string> = { zhh: 'MM/DD' };

/**
 * A start time (unix seconds): 'HH:mm' on the same day as `now`, else 'MM/DD HH:mm' (or 'DD/MM
 * HH:mm' as the language writes it), both in the language's zone.
 */
export function startText(ts: number, lang: string | null | undefined, now = new Date()): string {
  const at = inZone(ts * 1000, lang);
  const time = at.format('HH:mm');
  if (at.format('YYYY-MM-DD') === dayKey(now, lang)) return time;
  return `${at.format(DAY_MONTH[lang ?? ''] ?? 'DD/MM')} ${time}`;
}

/** The zone's short name for a caption ('GMT+7'). */
export function zoneLabel(lang: string | null | undefined, now = new Date()): string {
  const minutes = inZone(now, lang).utcOffset();
  const sign = minutes < 0 ? '-' : '+';
  const h = Math.floor(Math.abs(minutes) / 60);
  const m = Math.abs(minutes) % 60;
  return `GMT${sign}${h}${m ? `:${String(m).padStart(2, '0')}` : ''}`;
}

/**
 * Midnight (unix seconds) of a calendar day 'YYYY-MM-DD' `n` units after `ymd`: in the language's
 * zone, or the device's own for `lang` undefined. Calendar steps are taken on the date alone
 * (in UTC), then placed in the zone: stepping a zoned time would carry the device's offset.
 */
function midnight(ymd: string, lang: string | null | undefined, n = 0, unit: 'day' | 'month' = 'day'): number {
  const day = dayjs.utc(ymd).add(n, unit).format('YYYY-MM-DD');
  return (lang === undefined ? dayjs(day) : dayjs.tz(day, timeZoneFor(lang))).unix();
}

/** Midnight to midnight of `now`'s day in the language's zone, unix seconds ('today' lists). */
export function zoneDayRange(now: Date, lang: string | null | undefined): { '@gte': number; '@lt': number } {
  const today = dayKey(now, lang);
  return { '@gte': midnight(today, lang), '@lt': midnight(today, lang, 1) };
}

/** The date presets of spec 000 section 9: Today, Yesterday, Last 2 days, Last 3 days, Week (7 days), Month (1 month). */
export type DatePreset = 'today' | 'yesterday' | 'last2' | 'last3' | 'week' | 'month';

/**
 * A preset as [from, to) in unix seconds, by whole days in the language's zone (a language
 * given; `undefined`: the device's own days). The range ends at the next midnight.
 */
export function presetRange(preset: DatePreset, now: Date = new Date(), lang?: string | null): { from: number; to: number } {
  const today = lang === undefined ? dayjs(now).format('YYYY-MM-DD') : dayKey(now, lang);
  const at = (n: number, unit: 'day' | 'month' = 'day') => midnight(today, lang, n, unit);
  const to = at(1);
  switch (preset) {
    case 'today': return { from: at(0), to };
    case 'yesterday': return { from: at(-1), to: at(0) };
    case 'last2': return { from: at(-1), to };
    case 'last3': return { from: at(-2), to };
    case 'week': return { from: at(-6), to };
    case 'month': return { from: at(-1, 'month'), to };
  }
}
