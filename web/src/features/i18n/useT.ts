import { useAppSelector } from '../../app/hooks';
import { selectTranslate } from './selectors';
import type { ErrorInfo } from '../../api/http';
import type { Translate } from './translate';

export const useT = (): Translate => useAppSelector(selectTranslate);

/** The user-facing text of a stored error, in the current language. */
export function errorText(t: Translate, error: ErrorInfo): string {
  return error.key ? t(error.key, ...error.args) : error.msg;
}
