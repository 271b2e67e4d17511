/**
 * The reality check (a 1020 on /ws, DESIGN.md "Responsible gambling"): how long the member has
 * been playing, what they staked and their net result, until they choose to continue or to
 * log out (as the left menu logs out). A link leads to the statement on the safer gambling page.
 */
import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { Popup } from '../../components/form';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { SAFER_PATH, STATEMENT_ANCHOR, signedMoney } from '../safer/model';
import { selectLoggedIn } from '../session/selectors';
import { sessionActions } from '../session/sessionSlice';
import { realtimeActions } from './realtimeSlice';
import './reality.css';

export interface RealityCheck {
  session_minutes: number;
  /** Decimal strings; `net` is the member's result for the session (positive: won). */
  stakes: string;
  net: string;
  currency: string;
}

const decimal = (v: unknown) => (typeof v === 'number' || (typeof v === 'string' && /^[+-]?\d+(\.\d+)?$/.test(v.trim())) ? String(v).trim() : null);

/** A 1020 payload `{session_minutes, stakes, net, currency}`; null when it is not one. */
export function realityCheckOf(data: Record<string, unknown> | null): RealityCheck | null {
  if (!data) return null;
  const minutes = Number(data.session_minutes);
  const stakes = decimal(data.stakes);
  const net = decimal(data.net);
  if (data.session_minutes === undefined || !Number.isFinite(minutes) || minutes < 0 || stakes === null || net === null) return null;
  return { session_minutes: Math.round(minutes), stakes, net, currency: typeof data.currency === 'string' ? data.currency : '' };
}

export function RealityCheckPopup() {
  const t = useT();
  const dispatch = useAppDispatch();
  const payload = useAppSelector((s) => s.realtime.realityCheck);
  const loggedIn = useAppSelector(selectLoggedIn);
  const check = loggedIn ? realityCheckOf(payload) : null;
  // a payload that is not a reality check, or one that came after a logout, goes (nothing to show)
  const malformed = payload !== null && check === null;
  useEffect(() => {
    if (malformed) dispatch(realtimeActions.realityCheckClosed());
  }, [malformed, dispatch]);
  if (!check) return null;
  const close = () => dispatch(realtimeActions.realityCheckClosed());
  const logout = () => {
    close();
    dispatch(sessionActions.logoutRequested());
  };
  // the page opens at its statement; when it is on screen already, it scrolls there
  const toStatement = () => {
    close();
    if (window.location.pathname === SAFER_PATH) document.getElementById(STATEMENT_ANCHOR)?.scrollIntoView?.({ block: 'start' });
  };
  const currency = check.currency ? ` ${check.currency}` : '';
  const won = Number(check.net) > 0;
  const lost = Number(check.net) < 0;
  return (
    <Popup title={t('rg.reality.title')} testId="reality-check">
      <p className="sheet__text" data-testid="reality-check-text">
        {t('rg.reality.playing', check.session_minutes)}
      </p>
      <dl className="info-list reality__figures">
        <div className="info-list__row"><dt>{t('rg.reality.stakes')}</dt>
          <dd data-testid="reality-check-stakes">{formatMoney(check.stakes)}{currency}</dd></div>
        <div className="info-list__row"><dt>{t('rg.reality.net')}</dt>
          <dd data-testid="reality-check-net" className={won ? 'reality__won' : lost ? 'reality__lost' : undefined}>
            {signedMoney(check.net)}{currency}</dd></div>
      </dl>
      <p className="sheet__text">
        <Link href={`${SAFER_PATH}#${STATEMENT_ANCHOR}`} className="form__link" data-testid="reality-check-history" onClick={toStatement}>
          {t('rg.reality.history')}
        </Link>
      </p>
      <div className="sheet__actions">
        <button type="button" className="btn btn--ghost-dark" data-testid="reality-check-logout" onClick={logout}>{t('menu.logout')}</button>
        <button type="button" className="btn btn--gold" data-testid="reality-check-continue" autoFocus onClick={close}>{t('rg.reality.continue')}</button>
      </div>
    </Popup>
  );
}
