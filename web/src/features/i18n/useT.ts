import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../app/hooks';
import { selectI18n, selectTranslate } from './selectors';
import type { ErrorInfo } from '../../api/http';
import { fromI18next, type Translate } from './translate';

/**
 * The current language's translator: react-i18next's `t` of the loaded language's i18next
 * instance. Screens drawn before the language has loaded (the loader, the boot error) use
 * `useBootT`.
 */
export function useT(): Translate {
  const i18n = useAppSelector(selectI18n);
  const fallback = useAppSelector(selectTranslate);
  const { t } = useTranslation(undefined, i18n ? { i18n } : {});
  return useMemo(() => (i18n ? fromI18next(t) : fallback), [i18n, t, fallback]);
}

/** The translator for the boot screens: the language file or the boot strings, without waiting for i18next. */
export const useBootT = (): Translate => useAppSelector(selectTranslate);

/** The user-facing text of a stored error, in the current language. */
export function errorText(t: Translate, error: ErrorInfo): string {
  return error.key ? t(error.key, ...error.args) : error.msg;
}
