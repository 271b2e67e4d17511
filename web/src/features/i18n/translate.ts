/**
 * The translator. Texts go through i18next (features/i18n/engine.ts, a chunk of its own
 * that the boot loads beside the configuration and the language file); until it has
 * arrived (the loader and the boot error screen), keys are looked up in the language file
 * and the boot strings with the same '{1}' placeholders.
 */
import type { i18n as I18n, TOptions } from 'i18next';
import { fillPlaceholders } from '../../api/errors';
import { BOOT_STRINGS } from './bootStrings';
import type { Strings } from './i18nSlice';

export type Translate = (key: string, ...args: Array<string | number>) => string;

/** BCP 47 tags of the skin's language codes (plural rules, <html lang>, fonts, screen readers). */
export const HTML_LANG: Record<string, string> = { zhh: 'zh-Hans', eng: 'en', tha: 'th' };
export const localeTag = (lang: string) => HTML_LANG[lang] ?? lang;

type Engine = (strings: Strings, lang?: string | null) => I18n;
let engine: Engine | null = null;
/** Called by engine.ts when its chunk is evaluated. */
export const registerEngine = (create: Engine) => {
  engine = create;
};
/** The engine, once loaded (a selector input: selectors recompute when it arrives). */
export const currentEngine = () => engine;
/** Loads the i18next chunk (once; later calls share the import); it also loads the client's additions (./additions.ts). */
export const loadEngine = (): Promise<typeof import('./engine')> => import('./engine');

/** The i18next instance for a language file; null before the engine has arrived. */
export const i18nFor = (strings: Strings, lang: string | null, create: Engine | null = engine): I18n | null =>
  create ? create(strings, lang) : null;

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
  const i18n = i18nFor(strings, lang);
  if (i18n) return fromI18next(i18n.t);
  return (key, ...args) => fillPlaceholders(strings[key] ?? BOOT_STRINGS[key] ?? key, args);
}
