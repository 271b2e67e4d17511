import { useEffect } from 'react';
import { money2 } from '../cashout/calc';
import { formatOdds } from '../../shared/odds';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { formatDateTime } from '../../shared/time';
import { startText } from '../sport/parts';
import { selectLoggedIn } from '../session/selectors';
import { EmptyState } from '../shell/EmptyState';
import { uiActions } from '../shell/uiSlice';
import { historyActions, type HistoryTab } from './historySlice';
import { CashoutDialog } from '../cashout/CashoutDialog';
import { cashoutActions } from '../cashout/cashoutSlice';
import { CounterOffer } from '../counteroffer/CounterOffer';
import { RANGE_PRESETS, TYPE_KEYS, awaitsAnswer, cashoutOffered, isSettled, outcomeView, type BetRecord } from './model';

const TABS: Array<{ tab: HistoryTab; key: string }> = [
  { tab: 'unsettled', key: 'history.tab.unsettled' },
  { tab: 'settled', key: 'history.tab.settled' },
];
export const emptyKey = (tab: HistoryTab) => (tab === 'settled' ? 'history.empty_settled' : 'history.empty_unsettled');
export const filterTab = (list: BetRecord[], tab: HistoryTab) => list.filter((r) => isSettled(r) === (tab === 'settled'));

/** /history/bets: settled or unsettled bets of a date range. */
export function HistoryBetsPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const { preset, tab, list, status, error } = useAppSelector((s) => s.history);
  useEffect(() => {
    dispatch(historyActions.loadRequested());
  }, [dispatch, preset, loggedIn]);
  const shown = filterTab(list, tab);
  return (
    <div className="history" data-testid="history-page">
      <h1 className="card__title">{t('history.title')}</h1>
      <nav className="seg" aria-label={t('history.title')}>
        {TABS.map(({ tab: v, key }) => (
          <button key={v} type="button" className={v === tab ? 'seg__item is-active' : 'seg__item'} data-testid={`history-tab-${v}`}
            onClick={() => dispatch(historyActions.tabChosen(v))}>{t(key)}</button>
        ))}
      </nav>
      <div className="chips history__ranges">
        {RANGE_PRESETS.map((p) => (
          <button key={p} type="button" className={p === preset ? 'chip is-active' : 'chip'} data-testid={`range-${p}`}
            onClick={() => dispatch(historyActions.rangeChosen(p))}>{t(`history.range.${p}`)}</button>
        ))}
      </div>
      {!loggedIn ? (
        <div className="settings__guest">
          <p>{t(emptyKey(tab))}</p>
          <button type="button" className="btn btn--gold" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('header.login')}</button>
        </div>
      ) : status === 'loading' && list.length === 0 ? (
        <div className="skeleton" aria-busy="true"><div className="skeleton__row" /><div className="skeleton__row" /></div>
      ) : status === 'error' && error ? (
        <p className="slip__message" role="alert">{error.key ? t(error.key, ...error.args) : error.msg}</p>
      ) : shown.length === 0 ? (
        <EmptyState textKey={emptyKey(tab)} />
      ) : (
        <ul className="bet-list">
          {shown.map((r) => <BetCard key={String(r.id)} record={r} />)}
        </ul>
      )}
      <CashoutDialog />
    </div>
  );
}

/** Below a bet: the Cash out button, what cash-outs paid so far, the counter offer. */
export function BetActions({ record: r }: { record: BetRecord }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const amount = useAppSelector((s) => s.cashout.amounts[String(r.id)]);
  const paid = Number(r.cashout_amount ?? 0) > 0 && r.outcome !== OUTCOME_CASHED_OUT ? String(r.cashout_amount) : null;
  const offered = cashoutOffered(r);
  if (!offered && !paid && !awaitsAnswer(r)) return null;
  return (
    <div className="bet-card__actions" data-testid="bet-actions">
      <CounterOffer record={r} />
      {paid && <span className="bet-card__muted" data-testid="bet-cashed-so-far">{t('cashout.paid_so_far', formatMoney(paid))}</span>}
      {offered && (
        <button type="button" className="btn btn--cashout btn--sm" data-testid="cashout-button"
          onClick={() => dispatch(cashoutActions.opened(r))}>
          {t('cashout.button')}{amount !== undefined && amount !== null && <small data-testid="cashout-button-amount">{formatMoney(money2(amount))}</small>}
        </button>
      )}
    </div>
  );
}

const OUTCOME_CASHED_OUT = 5;

/** One bet: type, date, stake, odds, the picks and the outcome line. */
export function BetCard({ record: r, compact }: { record: BetRecord; compact?: boolean }) {
  const t = useT();
  const lang = useAppSelector((s) => s.i18n.lang);
  const view = outcomeView(r);
  const events = r.events ?? [];
  return (
    <li className={`bet-card bet-card--${view.cls}`} data-testid="bet-record" data-bet={String(r.id)} data-outcome={r.outcome}>
      <Link href={`/history/bet/${r.id}`} className="bet-card__link">
        <div className="bet-card__head">
          <strong>{t(TYPE_KEYS[r.type] ?? 'betslip.type.single')}{r.type === 3 && r.system_min_count ? ` ${r.system_min_count}/${events.length}` : ''}</strong>
          <span className={`bet-status bet-status--${view.cls}`} data-testid="bet-status">{t(view.statusKey)}</span>
        </div>
        {!compact && events.map((e, i) => (
          <div key={`${e.selection_id ?? i}`} className="bet-card__event">
            <span>{e.event_name} <em>@{formatOdds(e.coeficient ?? 0, 'decimal')}</em></span>
            <span className="bet-card__muted">{e.market_name} · {[e.team1, e.team2].filter(Boolean).join(' - ') || e.game_name}</span>
          </div>
        ))}
        {compact && <div className="bet-card__muted">{events.map((e) => e.event_name).join(', ')}</div>}
        <div className="bet-card__foot">
          <span>{t('betslip.stake')} {formatMoney(String(r.amount))}</span>
          {Number(r.k) > 0 && <span>{t('betslip.odds')} {formatOdds(r.k, 'decimal')}</span>}
          <span className={`bet-card__outcome bet-card__outcome--${view.cls}`} data-testid="bet-outcome">
            {t(view.labelKey)} {formatMoney(view.amount)}
            {view.bonus && <em className="bet-card__bonus"> +{formatMoney(view.bonus)} {t('history.bonus')}</em>}
          </span>
        </div>
        <div className="bet-card__muted">#{r.BetId ?? r.id} · {startText(Number(r.date_time), lang)}</div>
      </Link>
      {!compact && <BetActions record={r} />}
    </li>
  );
}

/** /history/bet/{id}: one bet, from the list when it is there, else asked for by BetId. */
export function HistoryBetPage({ id }: { id: string }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const lang = useAppSelector((s) => s.i18n.lang);
  const inList = useAppSelector((s) => [...s.history.list, ...s.history.recent.list].find((r) => String(r.id) === id || String(r.BetId) === id));
  const detail = useAppSelector((s) => s.history.detail);
  useEffect(() => {
    if (!inList) dispatch(historyActions.detailRequested(id));
  }, [dispatch, id, inList]);
  const record = inList ?? (detail.id === id ? detail.record : null);
  if (!record) {
    return detail.status === 'loading' || detail.id !== id ? <div className="page-loading" aria-busy="true" /> : <EmptyState textKey="history.not_found" />;
  }
  const view = outcomeView(record);
  return (
    <div className="history" data-testid="bet-detail">
      <h1 className="card__title">{t('history.detail_title')}</h1>
      <section className={`card bet-detail bet-card--${view.cls}`}>
        <dl className="bet-success__facts">
          <dt>{t('betslip.bet_id')}</dt><dd>{record.BetId ?? record.id}</dd>
          <dt>{t('betslip.bet_type')}</dt><dd>{t(TYPE_KEYS[record.type] ?? 'betslip.type.single')}</dd>
          <dt>{t('history.date')}</dt><dd data-testid="bet-date">{formatDateTime(Number(record.date_time) * 1000, lang)}</dd>
          <dt>{t('betslip.stake')}</dt><dd>{formatMoney(String(record.amount))} {record.currency ?? ''}</dd>
          {Number(record.k) > 0 && (<><dt>{t('betslip.odds')}</dt><dd>{formatOdds(record.k, 'decimal')}</dd></>)}
          <dt>{t('history.status')}</dt><dd><span className={`bet-status bet-status--${view.cls}`} data-testid="bet-status">{t(view.statusKey)}</span></dd>
          <dt>{t(view.labelKey)}</dt>
          <dd className={`bet-card__outcome--${view.cls}`} data-testid="bet-outcome">
            {formatMoney(view.amount)}{view.bonus && <em className="bet-card__bonus"> +{formatMoney(view.bonus)} {t('history.bonus')}</em>}
          </dd>
        </dl>
        <ul className="bet-detail__events">
          {(record.events ?? []).map((e, i) => (
            <li key={`${e.selection_id ?? i}`} className={`bet-card__event bet-event--${e.outcome === 3 ? 'open' : 'done'}`}>
              <strong>{e.event_name} <em>@{formatOdds(e.coeficient ?? 0, 'decimal')}</em></strong>
              <span className="bet-card__muted">{e.market_name}</span>
              <span className="bet-card__muted">{[e.sport_name, e.region_name, e.competition_name].filter(Boolean).join(' · ')}</span>
              <span>{[e.team1, e.team2].filter(Boolean).join(' - ') || e.game_name}</span>
            </li>
          ))}
        </ul>
        <BetActions record={record} />
      </section>
      <Link href="/history/bets" className="btn btn--ghost-dark btn--block">{t('history.back_to_list')}</Link>
      <CashoutDialog />
    </div>
  );
}

/** The right panel: 'Bet record within 24 hours', settled and unsettled tabs; visitors see an empty list. */
export function BetRecordPanel() {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const recent = useAppSelector((s) => s.history.recent);
  useEffect(() => {
    dispatch(historyActions.recentRequested());
  }, [dispatch, loggedIn]);
  const close = () => dispatch(historyActions.panelToggled(false));
  const shown = loggedIn ? filterTab(recent.list, recent.tab) : [];
  return (
    <div className="drawer drawer--right" role="dialog" aria-modal="true" aria-label={t('history.recent_title')} data-testid="bet-record-panel">
      <button type="button" className="drawer__scrim" aria-label={t('common.close')} onClick={close} />
      <aside className="drawer__panel drawer__panel--right">
        <h2 className="record-panel__title">{t('history.recent_title')}</h2>
        <nav className="seg" aria-label={t('history.recent_title')}>
          {(['settled', 'unsettled'] as HistoryTab[]).map((v) => (
            <button key={v} type="button" className={v === recent.tab ? 'seg__item is-active' : 'seg__item'} data-testid={`record-tab-${v}`}
              onClick={() => dispatch(historyActions.recentTabChosen(v))}>{t(v === 'settled' ? 'history.billed_note' : 'history.no_settlement_list')}</button>
          ))}
        </nav>
        {loggedIn && recent.status === 'loading' && recent.list.length === 0 ? (
          <div className="skeleton" aria-busy="true"><div className="skeleton__row" /></div>
        ) : shown.length === 0 ? (
          <EmptyState textKey={emptyKey(recent.tab)} />
        ) : (
          <ul className="bet-list" onClick={close}>
            {shown.map((r) => <BetCard key={String(r.id)} record={r} compact />)}
          </ul>
        )}
        {loggedIn && <Link href="/history/bets" className="btn btn--gold btn--block" onClick={close}>{t('history.all_records')}</Link>}
      </aside>
    </div>
  );
}
export { BetDataPage } from './BetDataPage';
