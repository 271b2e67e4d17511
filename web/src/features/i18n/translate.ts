/**
 * Translation on i18next: one i18next instance per loaded language file (the skin's flat
 * key -> text files, kept as they are), built when the file arrives. The spec's '{1}'
 * placeholders are i18next interpolation with '{' '}' delimiters and variables named 1, 2 ...;
 * a number as the first argument is also i18next's `count`, so a key with plural forms
 * (`key_one`, `key_other`, by the language's plural rules) picks its form. The boot strings
 * are the fallback language, then the key itself.
 */
import i18next, { type i18n as I18n, type TOptions } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { BOOT_STRINGS } from './bootStrings';
import type { Strings } from './i18nSlice';

export type Translate = (key: string, ...args: Array<string | number>) => string;

/** BCP 47 tags of the skin's language codes (plural rules, <html lang>, fonts, screen readers). */
export const HTML_LANG: Record<string, string> = { zhh: 'zh-Hans', eng: 'en', tha: 'th' };
export const localeTag = (lang: string) => HTML_LANG[lang] ?? lang;
/** The fallback "language": the boot strings (features/i18n/bootStrings.ts). */
const BOOT = 'dev';

/** An initialised i18next instance holding `strings` for `lang` (synchronous: the resources are in hand). */
export function createI18n(strings: Strings, lang: string | null = null): I18n {
  const lng = lang ? localeTag(lang) : BOOT;
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    lng,
    fallbackLng: BOOT,
    resources: lng === BOOT
      ? { [BOOT]: { translation: { ...BOOT_STRINGS, ...strings } } }
      : { [lng]: { translation: strings }, [BOOT]: { translation: BOOT_STRINGS } },
    initAsync: false,
    keySeparator: false,
    nsSeparator: false,
    returnNull: false,
    interpolation: { prefix: '{', suffix: '}', escapeValue: false, skipOnVariables: true },
    // a placeholder without an argument stays as written ('{3}')
    missingInterpolationHandler: (_text, match: string[]) => match[0],
    react: { useSuspense: false },
  });
  return instance;
}

/** The arguments as i18next options: {1}, {2} ... and, for a leading number, the plural count. */
function options(args: ReadonlyArray<string | number>): TOptions {
  const vars: Record<string, string | number> = {};
  args.forEach((value, i) => (vars[String(i + 1)] = value));
  return typeof args[0] === 'number' ? { ...vars, count: args[0] } : vars;
}

/** Our Translate over an i18next `t`. */
export const fromI18next = (t: I18n['t']): Translate => (key, ...args) => String(t(key, options(args)));

/** Looks `key` up in the loaded language file; the boot strings cover the time before one exists. */
export function makeTranslator(strings: Strings, lang: string | null = null): Translate {
  return fromI18next(createI18n(strings, lang).t);
}
