import { useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { betslipActions } from './betslipSlice';
import { QUICK_BET_STAKES, checkQuickStake } from './calc';
import { selectStakeBalance } from './selectors';
import './quickbet.css';

/**
 * Quick bet from the game lists (spec 000 sections 4, 5, 9): the switch and the saved stake sit on the
 * sport pages, beside the betslip button, so a member turns it on without opening the sheet and a tap
 * on any price places a single at once. Opening and closing the sheet still turns it off (section 4).
 */
export function QuickBetBar() {
  const t = useT();
  const dispatch = useAppDispatch();
  const on = useAppSelector((s) => s.betslip.quickBet);
  const stake = useAppSelector((s) => s.betslip.quickBetStake);
  const loggedIn = useAppSelector(selectLoggedIn);
  const balance = useAppSelector(selectStakeBalance);
  const [picking, setPicking] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const choose = (value: string) => {
    const check = checkQuickStake(value, loggedIn, balance);
    if (!check.ok) return setError(check.key);
    setError(null);
    setPicking(false);
    dispatch(betslipActions.quickBetStakeSaved(check.stake));
  };
  const toggle = (value: boolean) => {
    setPicking(false);
    setError(null);
    dispatch(betslipActions.quickBetToggled(value));
  };
  return (
    <div className={on ? 'quickbar is-on' : 'quickbar'} data-testid="quick-bet-bar">
      {on && picking && (
        <div className="quickbar__chips" role="listbox" aria-label={t('quickbet.stake')}>
          {QUICK_BET_STAKES.map((a) => (
            <button key={a} type="button" role="option" aria-selected={String(a) === stake} data-testid={`quick-stake-${a}`}
              className={String(a) === stake ? 'chip is-active' : 'chip'} onClick={() => choose(String(a))}>{a}</button>
          ))}
          {error && <p className="quickbar__error" role="alert">{t(error)}</p>}
        </div>
      )}
      <div className="quickbar__row">
        <label className="quickbar__switch">
          <input type="checkbox" checked={on} data-testid="quick-bet-list-toggle" onChange={(e) => toggle(e.target.checked)} />
          <span className="quickbar__bolt" aria-hidden="true">⚡</span>
          <span>{t('quickbet.on')}</span>
        </label>
        {on && (
          <button type="button" className="quickbar__stake" data-testid="quick-bet-stake" aria-expanded={picking}
            aria-label={t('quickbet.stake')} onClick={() => setPicking(!picking)}>{formatMoney(stake)} ▾</button>
        )}
      </div>
      {on && !picking && <p className="quickbar__hint" data-testid="quick-bet-hint">{t('quickbet.bar', formatMoney(stake))}</p>}
    </div>
  );
}
