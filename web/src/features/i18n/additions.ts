/**
 * The client's own strings (./strings/{lang}.json): keys this client uses that the skin's
 * language files (config/skins/languages, served under /skins) do not have yet, in the same
 * three languages. They load with the language file, one small chunk per language, through
 * the i18next engine's chunk (never in the first load: translate.ts `loadAdditions`), and sit under it: a key the skin's file has wins, so moving a key into the
 * skin's files changes nothing on screen. The i18n tests keep the three files to the same keys
 * and placeholders, and apart from the skin's keys.
 */
import type { Strings } from './i18nSlice';

const FILES = import.meta.glob<Strings>('./strings/*.json', { import: 'default' });

/** The additions for `lang` ({} for a language without a file). */
export async function loadAdditions(lang: string): Promise<Strings> {
  const load = FILES[`./strings/${lang}.json`];
  return load ? load() : {};
}
