/**
 * /betdata (spec 001 section 2.1; back to the user centre, section 2.3): the member's betting
 * statistics over a period from the bet history read model (`report/betanalytics`): bets,
 * turnover, payout, profit, win rate, the outcomes, and the split by bet type and sport.
 */
import { useEffect, useState } from 'react';
import { apiPost, toErrorInfo, type ErrorInfo } from '../../api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { formatMoney } from '../../shared/money';
import { errorText, useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { EmptyState } from '../shell/EmptyState';
import { uiActions } from '../shell/uiSlice';
import { BETDATA_PATH, STATS_PRESETS, outcomeShares, profitClass, signed, statsParams, type BetStats, type Totals } from './betdata';
import { TYPE_KEYS, type RangePreset } from './model';
import './betdata.css';

/** The statistics of a period; the last answer stays shown (dimmed) while the next one loads. */
function useStats(preset: RangePreset) {
  const loggedIn = useAppSelector(selectLoggedIn);
  const lang = useAppSelector((s) => s.i18n.lang);
  const key = `${preset}/${lang ?? ''}`;
  const [state, setState] = useState<{ key: string; data: BetStats | null; error: ErrorInfo | null }>({ key: '', data: null, error: null });
  useEffect(() => {
    if (!loggedIn) return;
    let live = true;
    apiPost<BetStats>(BETDATA_PATH, statsParams(preset, new Date(), lang))
      .then((data) => live && setState({ key, data, error: null }))
      .catch((err) => live && setState({ key, data: null, error: toErrorInfo(err) }));
    return () => { live = false; };
  }, [key, preset, loggedIn, lang]);
  return { ...state, loading: state.key !== key };
}

const money = (text: string) => formatMoney(text);

function Figure({ label, value, cls, testId }: { label: string; value: string; cls?: string; testId?: string }) {
  return (
    <div className="betdata__figure">
      <span>{label}</span>
      <strong className={cls} data-testid={testId}>{value}</strong>
    </div>
  );
}

function Split({ title, rows }: { title: string; rows: Array<{ key: string; label: string; t: Totals }> }) {
  const t = useT();
  if (rows.length === 0) return null;
  return (
    <section className="card betdata__split">
      <h2 className="betdata__h2">{title}</h2>
      <table className="betdata__table">
        <thead><tr><th /><th>{t('betdata.bets')}</th><th>{t('betdata.stake')}</th><th>{t('betdata.profit')}</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key}>
              <th scope="row">{r.label}</th>
              <td>{r.t.count}</td>
              <td>{money(r.t.stake)}</td>
              <td className={profitClass(r.t.profit)}>{signed(money(r.t.profit))}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

export function BetDataPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const loggedIn = useAppSelector(selectLoggedIn);
  const [preset, setPreset] = useState<RangePreset>('week');
  const { data, error, loading } = useStats(preset);
  const empty = data !== null && data.total.count === 0 && data.declined === 0;
  return (
    <div className="betdata" data-testid="betdata-page">
      <h1 className="card__title">{t('betdata.title')}</h1>
      <div className="chips history__ranges">
        {STATS_PRESETS.map((p) => (
          <button key={p} type="button" className={p === preset ? 'chip is-active' : 'chip'} data-testid={`range-${p}`}
            onClick={() => setPreset(p)}>{t(`history.range.${p}`)}</button>
        ))}
      </div>
      {!loggedIn ? (
        <div className="settings__guest">
          <p>{t('settings.login_first')}</p>
          <button type="button" className="btn btn--gold" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>{t('header.login')}</button>
        </div>
      ) : error ? (
        <p className="slip__message" role="alert">{errorText(t, error)}</p>
      ) : !data ? (
        <div className="skeleton" aria-busy="true"><div className="skeleton__row" /><div className="skeleton__row" /></div>
      ) : empty ? (
        <EmptyState textKey="betdata.empty" />
      ) : (
        <div className={loading ? 'betdata__body is-loading' : 'betdata__body'}>
          <section className="card betdata__summary" data-testid="betdata-summary">
            <div className="betdata__profit">
              <span>{t('betdata.profit')} ({data.currency})</span>
              <strong className={profitClass(data.total.profit)} data-testid="betdata-profit">{signed(money(data.total.profit))}</strong>
            </div>
            <div className="betdata__figures">
              <Figure label={t('betdata.bets')} value={String(data.total.count)} testId="betdata-count" />
              <Figure label={t('betdata.stake')} value={money(data.total.stake)} testId="betdata-stake" />
              <Figure label={t('betdata.payout')} value={money(data.total.payout)} />
              <Figure label={t('betdata.win_rate')} value={data.win_rate === null ? '—' : `${data.win_rate}%`} testId="betdata-win-rate" />
              <Figure label={t('betdata.average_odds')} value={data.average_odds ?? '—'} />
              <Figure label={t('betdata.biggest_win')} value={money(data.biggest_win)} />
            </div>
            {data.partial && <p className="betdata__note">{t('betdata.partial')}</p>}
          </section>
          <section className="card">
            <h2 className="betdata__h2">{t('betdata.outcomes')}</h2>
            <div className="betdata__bar" role="img" aria-label={t('betdata.outcomes')}>
              {outcomeShares(data).filter((s) => s.count > 0).map((s) => (
                <span key={s.kind} className={`betdata__seg betdata__seg--${s.kind}`} style={{ flexGrow: s.count }} title={`${s.percent}%`} />
              ))}
            </div>
            <ul className="betdata__legend" data-testid="betdata-outcomes">
              {outcomeShares(data).map((s) => (
                <li key={s.kind}><i className={`betdata__dot betdata__seg--${s.kind}`} />{t(`betdata.outcome.${s.kind}`)} <b>{s.count}</b></li>
              ))}
              {data.declined > 0 && <li><i className="betdata__dot" />{t('history.status.declined')} <b>{data.declined}</b></li>}
            </ul>
          </section>
          <Split title={t('betdata.by_type')}
            rows={data.by_type.map((r) => ({ key: String(r.type), label: t(TYPE_KEYS[r.type] ?? 'betdata.other'), t: r }))} />
          <Split title={t('betdata.by_sport')}
            rows={data.by_sport.map((r) => ({ key: r.sport || '-', label: r.sport || t('betdata.mixed'), t: r }))} />
        </div>
      )}
      <Link href="/history/bets" className="btn btn--ghost-dark btn--block">{t('history.all_records')}</Link>
    </div>
  );
}
