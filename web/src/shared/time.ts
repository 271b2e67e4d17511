/**
 * Times shown to a member (spec 000 section 9): the default time zone is Asia/Bangkok for every
 * language but zhh, which shows China time (Asia/Shanghai). Start times, bet dates and the like go
 * through here, so they read the same whatever the device's own zone is.
 */

export const BANGKOK = 'Asia/Bangkok';
export const CHINA = 'Asia/Shanghai';

const LOCALE: Record<string, string> = { zhh: 'zh-CN', eng: 'en-GB', tha: 'th-TH' };

export const timeZoneFor = (lang: string | null | undefined) => (lang === 'zhh' ? CHINA : BANGKOK);
export const localeFor = (lang: string | null | undefined) => LOCALE[lang ?? ''] ?? 'en-GB';

const parts = (date: Date, lang: string | null | undefined, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat('en-GB', { timeZone: timeZoneFor(lang), hourCycle: 'h23', ...options })
    .formatToParts(date)
    .reduce<Record<string, string>>((out, p) => ((out[p.type] = p.value), out), {});

/** The calendar day of `date` in the language's zone, 'YYYY-MM-DD'. */
export function dayKey(date: Date, lang: string | null | undefined): string {
  const p = parts(date, lang, { year: 'numeric', month: '2-digit', day: '2-digit' });
  return `${p.year}-${p.month}-${p.day}`;
}

/**
 * A start time (unix seconds): 'HH:mm' on the same day as `now`, else 'MM/DD HH:mm' (digits as the
 * language writes them), both in the language's zone.
 */
export function startText(ts: number, lang: string | null | undefined, now = new Date()): string {
  const date = new Date(ts * 1000);
  const zone = timeZoneFor(lang);
  const locale = localeFor(lang);
  const time = date.toLocaleTimeString(locale, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: zone });
  if (dayKey(date, lang) === dayKey(now, lang)) return time;
  return `${date.toLocaleDateString(locale, { month: '2-digit', day: '2-digit', timeZone: zone })} ${time}`;
}

/** The zone's short name for a caption ('GMT+7'). */
export function zoneLabel(lang: string | null | undefined, now = new Date()): string {
  return parts(now, lang, { timeZoneName: 'short' }).timeZoneName ?? timeZoneFor(lang);
}

/** The zone's offset from UTC at `date`, in ms (Bangkok +7 h, Shanghai +8 h). */
function zoneOffsetMs(date: Date, lang: string | null | undefined): number {
  const p = parts(date, lang, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return asUtc - Math.floor(date.getTime() / 1000) * 1000;
}

/** Midnight to midnight of `now`'s day in the language's zone, unix seconds ('today' lists). */
export function zoneDayRange(now: Date, lang: string | null | undefined): { '@gte': number; '@lt': number } {
  const offset = zoneOffsetMs(now, lang);
  const local = now.getTime() + offset;
  const start = local - (((local % 86_400_000) + 86_400_000) % 86_400_000) - offset;
  return { '@gte': Math.floor(start / 1000), '@lt': Math.floor(start / 1000) + 86_400 };
}
