import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { useAppSelector } from '../../app/hooks';
import { selectI18n } from './selectors';
import type { ErrorInfo } from '../../api/http';
import { fromI18next, type Translate } from './translate';

/** The current language's translator: react-i18next's `t` of the loaded language's i18next instance. */
export function useT(): Translate {
  const i18n = useAppSelector(selectI18n);
  const { t } = useTranslation(undefined, { i18n });
  return useMemo(() => fromI18next(t), [t]);
}

/** The user-facing text of a stored error, in the current language. */
export function errorText(t: Translate, error: ErrorInfo): string {
  return error.key ? t(error.key, ...error.args) : error.msg;
}
