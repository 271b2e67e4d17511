import { fillPlaceholders } from '../../api/errors';
import { BOOT_STRINGS } from './bootStrings';
import type { Strings } from './i18nSlice';

export type Translate = (key: string, ...args: Array<string | number>) => string;

/** Looks `key` up in the loaded language file; the boot strings cover the time before one exists. */
export function makeTranslator(strings: Strings): Translate {
  return (key, ...args) => fillPlaceholders(strings[key] ?? BOOT_STRINGS[key] ?? key, args);
}
