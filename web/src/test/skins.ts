import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The real skin files under config/skins (tests run from web/). */
export const SKINS_DIR = resolve(process.cwd(), '../config/skins');

export const readSkin = <T = Record<string, string>>(relative: string): T =>
  JSON.parse(readFileSync(resolve(SKINS_DIR, relative), 'utf8')) as T;
