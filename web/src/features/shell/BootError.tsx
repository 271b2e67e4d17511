import { useAppDispatch } from '../../app/hooks';
import type { ErrorInfo } from '../../api/http';
import { configActions } from '../config/configSlice';
import { errorText, useBootT } from '../i18n/useT';

interface NetworkInformationLike {
  effectiveType?: string;
}

/** The configuration-load failure popup with the diagnostics support asks for (spec section 8). */
export function BootError({ error }: { error: ErrorInfo }) {
  const t = useBootT(); // drawn before the language (and i18next) has loaded
  const dispatch = useAppDispatch();
  const connection = (navigator as Navigator & { connection?: NetworkInformationLike }).connection;
  const online = navigator.onLine ? t('boot.error.online_yes') : t('boot.error.online_no');

  return (
    <div className="overlay" role="alertdialog" aria-labelledby="boot-error-title" data-testid="boot-error">
      <div className="popup">
        <h2 id="boot-error-title" className="popup__title">{t('boot.error.title')}</h2>
        <p className="popup__message" data-testid="boot-error-message">{errorText(t, error)}</p>
        <dl className="popup__diag">
          <dt>{t('boot.error.code')}</dt>
          <dd>{error.httpStatus ? `${error.status} / HTTP ${error.httpStatus}` : error.status}</dd>
          <dt>{t('boot.error.online')}</dt>
          <dd data-testid="boot-error-online">
            {online}
            {connection?.effectiveType ? ` (${connection.effectiveType})` : ''}
          </dd>
          <dt>{t('boot.error.user_agent')}</dt>
          <dd className="popup__ua">{navigator.userAgent}</dd>
        </dl>
        <button type="button" className="btn btn--primary btn--block" onClick={() => dispatch(configActions.loadRequested())}>
          {t('boot.error.retry')}
        </button>
      </div>
    </div>
  );
}
