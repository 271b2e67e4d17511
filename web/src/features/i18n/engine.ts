/**
 * The i18next engine (its own chunk: loaded at boot beside the configuration and the
 * language file, off the first-load bundle). One i18next instance per loaded language file
 * (the skin's flat key -> text files, kept as they are). The spec's '{1}' placeholders are
 * i18next interpolation with '{' '}' delimiters and variables named 1, 2 ...; a number as the
 * first argument is also i18next's `count`, so a key with plural forms (`key_one`,
 * `key_other`, by the language's plural rules) picks its form. The boot strings are the
 * fallback language, then the key itself.
 */
import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import { BOOT_STRINGS } from './bootStrings';
import type { Strings } from './i18nSlice';
import { localeTag, registerEngine } from './translate';

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

registerEngine(createI18n);

// the client's additions to the language files load through this chunk (off the first load)
export { loadAdditions } from './additions';
