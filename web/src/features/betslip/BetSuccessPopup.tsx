import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatOdds } from '../../shared/odds';
import { navigate } from '../../app/router';
import { formatMoney } from '../../shared/money';
import { historyActions } from '../history/historySlice';
import { useT } from '../i18n/useT';
import { startText } from '../sport/parts';
import { betslipActions } from './betslipSlice';
import { SP_PRICE, roundMoney, type BetType } from './calc';
import { dec } from './arith';
import { TYPE_KEYS } from './BetslipPanel';
import { selectBetSuccess, selectCurrency } from './selectors';

/**
 * Potential win shown = amount x odds (spec 000 section 3, Bet success data), in exact decimals. The server's
 * possible_win is that figure as the bet records it (from the exact product; each-way and systems by line), so it
 * wins when given; null when neither is known (a pick at SP: the odds come at the off).
 */
export const potentialWin = (amount: string | number, k: string | number | null | undefined, possible?: string | number | null) => {
  const recorded = dec(possible);
  if (recorded) return roundMoney(recorded.toString()) || '0';
  const a = dec(amount);
  const odds = dec(k);
  if (a && odds) return roundMoney(a.times(odds).toString()) || '0';
  return null;
};

/** A leg's price in the answer: -1 (or none) for SP. */
const isSpPrice = (price: string | number | null | undefined) => price !== undefined && (price === null || Number(price) === SP_PRICE);

/** The bet success popup (spec 000 section 4): continue betting, or today's bet history. */
export function BetSuccessPopup() {
  const t = useT();
  const dispatch = useAppDispatch();
  const bet = useAppSelector(selectBetSuccess);
  const lang = useAppSelector((s) => s.i18n.lang);
  const currency = useAppSelector(selectCurrency);
  if (!bet) return null;
  const win = potentialWin(bet.amount, bet.k, bet.possible_win);
  // the popup closes the betslip (spec 000 section 4); the saga also clears it 500 ms after the bet
  const close = () => {
    dispatch(betslipActions.successClosed());
    dispatch(betslipActions.closed());
  };
  const history = () => {
    close();
    dispatch(historyActions.rangeChosen('today'));
    navigate('/history/bets');
  };
  return (
    <div className="overlay bet-success-overlay" role="dialog" aria-modal="true" aria-labelledby="bet-success-title" data-testid="bet-success">
      <div className="popup bet-success">
        <div className="bet-success__icon" aria-hidden="true">✓</div>
        <h2 id="bet-success-title" className="popup__title">{t('betslip.success_title')}</h2>
        <dl className="bet-success__facts">
          <dt>{t('betslip.bet_id')}</dt><dd data-testid="bet-success-id">{bet.bet_id}</dd>
          <dt>{t('betslip.bet_type')}</dt><dd>{t(TYPE_KEYS[bet.type as BetType] ?? 'betslip.type.single')}</dd>
          <dt>{t('betslip.stake')}</dt><dd>{formatMoney(String(bet.amount))} {bet.currency ?? currency}</dd>
          {bet.k !== null && bet.k !== undefined && (<><dt>{t('betslip.odds')}</dt><dd>{formatOdds(bet.k, 'decimal')}</dd></>)}
          <dt>{t('betslip.potential_win')}</dt>
          <dd className="bet-success__win" data-testid="bet-success-win">{win === null ? '-' : `${formatMoney(win)} ${bet.currency ?? currency}`}</dd>
        </dl>
        <ul className="bet-success__events">
          {(bet.events ?? []).map((e, i) => (
            <li key={`${e.event_id ?? i}`}>
              <span className="bet-success__line">
                <strong>{e.event_name}</strong>
                {isSpPrice(e.price) ? <span className="bet-success__price">@{t('betslip.sp')}</span>
                  : e.price !== undefined && <span className="bet-success__price">@{formatOdds(e.price ?? '', 'decimal')}</span>}
              </span>
              <span>{[e.home_team, e.away_team].filter(Boolean).join(' - ')}</span>
              {e.market_name && <span className="bet-success__muted">{e.market_name}</span>}
              {e.start_date ? <span className="bet-success__muted">{startText(e.start_date, lang)}</span> : null}
            </li>
          ))}
        </ul>
        <div className="bet-success__actions">
          <button type="button" className="btn btn--ghost-dark" data-testid="bet-success-history" onClick={history}>{t('betslip.bet_history')}</button>
          <button type="button" className="btn btn--primary" data-testid="bet-success-continue" onClick={close}>{t('betslip.continue_betting')}</button>
        </div>
      </div>
    </div>
  );
}
