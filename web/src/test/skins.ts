import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The real skin files under config/skins (tests run from web/). */
export const SKINS_DIR = resolve(process.cwd(), '../config/skins');

export const readSkin = <T = Record<string, string>>(relative: string): T =>
  JSON.parse(readFileSync(resolve(SKINS_DIR, relative), 'utf8')) as T;

/** A language as the client loads it: the skin's file with the client's additions (features/i18n/additions.ts) under it. */
export function readLanguage(lang: string): Record<string, string> {
  const additions = JSON.parse(readFileSync(resolve(process.cwd(), `src/features/i18n/strings/${lang}.json`), 'utf8')) as Record<string, string>;
  return { ...additions, ...readSkin(`languages/${lang}.json`) };
}
