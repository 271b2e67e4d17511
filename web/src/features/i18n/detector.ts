import type { LanguageDetectorModule } from 'i18next';

/** Where the member's language choice is kept (spec 000 section 9; read at boot). */
export const LANGUAGE_STORAGE_KEY = 'lang';

/**
 * The language detector: the stored `lang` (localStorage), as an i18next detector module.
 * The boot saga takes it only when the skin offers it (features/config/sagas.ts); the
 * switcher caches the choice before the reload.
 */
export const storedLanguage: LanguageDetectorModule = {
  type: 'languageDetector',
  detect: () => {
    try {
      return localStorage.getItem(LANGUAGE_STORAGE_KEY) ?? undefined;
    } catch {
      return undefined; // storage disabled (private mode): the default language
    }
  },
  cacheUserLanguage: (lang: string) => {
    try {
      localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
    } catch {
      // private mode: the reload falls back to the default language
    }
  },
};

/** The stored language, or null. */
export function detectStoredLanguage(): string | null {
  const found = storedLanguage.detect();
  return typeof found === 'string' ? found : null;
}
