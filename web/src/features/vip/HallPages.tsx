import { Suspense, useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { lazyRetry } from '../../app/lazyRetry';
import { Link } from '../../app/router';
import { useSaga } from '../../app/useSaga';
import { errorText, useT } from '../i18n/useT';
import { selectLoggedIn } from '../session/selectors';
import { ChunkBoundary } from '../shell/ChunkBoundary';
import { uiActions } from '../shell/uiSlice';
import { barWidth, formatTime, type LedgerRow, type VipDetail } from './model';
import { vipSaga } from './sagas';
import { selectVip, vipActions } from './vipSlice';
import './vip.css';

/** The experience chart pulls uPlot: its own chunk, loaded on /hallofhonor/growup only. */
const ExpChart = lazyRetry(() => import('./ExpChart').then((m) => ({ default: m.ExpChart })));

export type HonorSub = 'main' | 'growup' | 'mbdetails' | 'newhonor';

/** /hallofhonor and its sub-pages (spec 001 section 2.1): starts the VIP saga while mounted. */
export function HallOfHonor({ sub }: { sub: HonorSub }) {
  const running = useSaga(vipSaga);
  const loggedIn = useAppSelector(selectLoggedIn);
  const t = useT();
  const dispatch = useAppDispatch();
  if (!loggedIn) {
    return (
      <div className="vip vip--guest card" data-testid="vip-guest">
        <p>{t('vip.login_first')}</p>
        <button type="button" className="btn btn--gold" onClick={() => dispatch(uiActions.popupRequested({ name: 'login' }))}>
          {t('menu.member_login')}
        </button>
      </div>
    );
  }
  if (!running) return null;
  return (
    <div className="vip" data-testid="vip-page">
      <nav className="tabs vip__tabs" aria-label={t('vip.title')}>
        {(['main', 'growup', 'mbdetails', 'newhonor'] as const).map((s) => (
          <Link key={s} href={s === 'main' ? '/hallofhonor' : `/hallofhonor/${s}`} className={`tabs__tab${s === sub ? ' is-active' : ''}`}>
            {t(`vip.tab.${s}`)}
          </Link>
        ))}
      </nav>
      {sub === 'main' && <Overview />}
      {sub === 'growup' && <GrowUp />}
      {sub === 'mbdetails' && <McoinReport />}
      {sub === 'newhonor' && <NewHonor />}
    </div>
  );
}

function useDetail() {
  const dispatch = useAppDispatch();
  useEffect(() => {
    dispatch(vipActions.detailRequested());
  }, [dispatch]);
  return useAppSelector(selectVip);
}

function Bar({ label, pct, have, need, testId }: { label: string; pct: string; have: string; need: string; testId: string }) {
  return (
    <div className="vip-bar" data-testid={testId}>
      <div className="vip-bar__head">
        <span>{label}</span>
        <span>{have} / {need}</span>
      </div>
      <div className="vip-bar__track" role="progressbar" aria-valuenow={Number(pct)} aria-valuemin={0} aria-valuemax={100}>
        <div className="vip-bar__fill" style={{ width: barWidth(pct) }} />
      </div>
    </div>
  );
}

function LevelCard({ detail }: { detail: VipDetail }) {
  const t = useT();
  return (
    <section className="card vip-card" data-testid="vip-card">
      <div className="vip-card__top">
        <div className="vip-card__badge" aria-hidden="true">V{detail.level}</div>
        <div>
          <div className="vip-card__name" data-testid="vip-level-name">{detail.vipname}</div>
          <div className="vip-card__meta">
            {t('vip.level', detail.level)} · {t('vip.rank', detail.userrank)}
          </div>
        </div>
        <div className="vip-card__exp">
          <span>{t('vip.experience')}</span>
          <strong data-testid="vip-exp">{detail.vipexpbalance}</strong>
        </div>
      </div>
      {detail.next ? (
        <>
          <p className="vip-card__next">{t('vip.next_level', detail.next.vipname)}</p>
          <Bar label={t('vip.deposits')} pct={detail.progress.money} have={detail.money} need={detail.next.money} testId="vip-bar-money" />
          <Bar label={t('vip.turnover')} pct={detail.progress.bets} have={detail.bets} need={detail.next.bets} testId="vip-bar-bets" />
        </>
      ) : (
        <p className="vip-card__next">{t('vip.top_level')}</p>
      )}
      <div className="vip-card__facts">
        <span>{t('vip.points')}: <strong>{detail.points}</strong></span>
        <span>{t('vip.withdraw_limits', detail.withdrawtimes, detail.withdrawlimits)}</span>
      </div>
    </section>
  );
}

function ClaimButton({ status, claimKey, onClaim, testId, offKey = 'vip.not_reached' }: {
  status: number; claimKey: string; onClaim: () => void; testId: string; offKey?: string;
}) {
  const t = useT();
  const claim = useAppSelector((s) => selectVip(s).claim);
  const pending = claim.key === claimKey && claim.status === 'pending';
  if (status === 2) return <span className="vip-claim vip-claim--done" data-testid={testId} data-state="received">{t('vip.received')}</span>;
  if (status === 0) return <span className="vip-claim vip-claim--off" data-testid={testId} data-state="locked">{t(offKey)}</span>;
  return (
    <button type="button" className="btn btn--gold vip-claim" data-testid={testId} data-state="claimable" disabled={pending} onClick={onClaim}>
      {pending ? t('vip.claiming') : t('vip.claim')}
    </button>
  );
}

function Overview() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { detail, levels, status, error, claim } = useDetail();
  if (status === 'error' && error) return <p className="vip-error" role="alert">{errorText(t, error)}</p>;
  if (!detail) return <div className="page-loading" aria-busy="true" />;
  return (
    <>
      <LevelCard detail={detail} />
      {claim.status === 'done' && claim.amount && (
        <p className="vip-notice" role="status" data-testid="vip-claimed">{t('vip.claimed', claim.amount, detail.currency)}</p>
      )}
      {claim.status === 'error' && claim.error && <p className="vip-error" role="alert">{errorText(t, claim.error)}</p>}
      <section className="card vip-rebate">
        <h2 className="section-title">{t('vip.rebate_title', detail.rebate.day)}</h2>
        <table className="vip-table">
          <thead><tr><th>{t('vip.product')}</th><th>{t('vip.turnover')}</th><th>%</th><th>{t('vip.amount')}</th></tr></thead>
          <tbody>
            {detail.rebate.items.map((i) => (
              <tr key={i.product}><td>{t(`vip.product.${i.product}`)}</td><td>{i.turnover}</td><td>{i.rate}</td><td>{i.amount}</td></tr>
            ))}
          </tbody>
        </table>
        <ClaimButton status={detail.rebate.status} claimKey="rebate" testId="vip-claim-rebate" offKey="vip.no_rebate"
          onClaim={() => dispatch(vipActions.rebateClaimRequested())} />
        <p className="vip-hint">{t('vip.salary_line', detail.salary.monthsalary, detail.salary.cashflow, detail.salary.month_turnover)}</p>
      </section>
      <section className="card">
        <h2 className="section-title">{t('vip.levels_title')}</h2>
        <div className="vip-levels" data-testid="vip-levels">
          <table className="vip-table">
            <thead>
              <tr>
                <th>{t('vip.level_short')}</th><th>{t('vip.requirements')}</th><th>{t('vip.gift')}</th>
                <th>{t('vip.salary')}</th><th>{t('vip.rebates')}</th>
              </tr>
            </thead>
            <tbody>
              {levels.map((l) => {
                const gift = detail.gifts.find((g) => g.level === l.level);
                return (
                  <tr key={l.level} className={l.level === detail.level ? 'is-current' : undefined}>
                    <td><strong>V{l.level}</strong><br /><small>{l.vipname}</small></td>
                    <td>{l.money}<br /><small>{l.bets}</small></td>
                    <td>
                      <div className="vip-gift">
                        {l.growgift}
                        {gift && <ClaimButton status={gift.status} claimKey={`gift:${l.level}`} testId={`vip-claim-gift-${l.level}`}
                          onClaim={() => dispatch(vipActions.giftClaimRequested(l.level))} />}
                      </div>
                    </td>
                    <td>{l.monthsalary}</td>
                    <td><small>{l.sport}<br />{l.ag}<br />{l.pg}</small></td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
        <p className="vip-hint">{t('vip.table_hint')}</p>
      </section>
    </>
  );
}

function Rows({ rows, field }: { rows: LedgerRow[]; field: 'exp' | 'score' }) {
  const t = useT();
  if (rows.length === 0) return <p className="vip-empty">{t('empty.no_data')}</p>;
  return (
    <table className="vip-table" data-testid={`vip-rows-${field}`}>
      <thead><tr><th>{t('vip.time')}</th><th>{t('vip.kind')}</th><th>{field === 'exp' ? t('vip.experience') : t('vip.points')}</th>
        {field === 'exp' && <th>{t('vip.deposits')}</th>}</tr></thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.id}>
            <td>{formatTime(r.time)}</td>
            <td>{t(`vip.kind.${r.kind}`)}</td>
            <td className={Number(r[field]) < 0 ? 'is-neg' : 'is-pos'}>{Number(r[field]) > 0 ? '+' : ''}{r[field]}</td>
            {field === 'exp' && <td>{r.money}</td>}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** /hallofhonor/growup: 'Honor data', experience over time. */
function GrowUp() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { xp, detail } = useAppSelector(selectVip);
  useEffect(() => {
    dispatch(vipActions.xpRequested());
    dispatch(vipActions.detailRequested());
  }, [dispatch]);
  return (
    <section className="card" data-testid="vip-growup">
      <h1 className="section-title">{t('vip.honor_data')}</h1>
      {detail && <p className="vip-hint">{t('vip.experience')}: <strong>{detail.vipexpbalance}</strong> · {detail.vipname}</p>}
      {xp.status === 'ready' && xp.list.length > 0 && (
        <ChunkBoundary>
          <Suspense fallback={<div className="vip-chart vip-chart--loading" aria-busy="true" />}>
            <ExpChart rows={xp.list} label={t('vip.experience')} />
          </Suspense>
        </ChunkBoundary>
      )}
      {xp.status === 'loading' && <div className="page-loading" aria-busy="true" />}
      {xp.status === 'ready' && <Rows rows={xp.list} field="exp" />}
    </section>
  );
}

/** /hallofhonor/mbdetails: 'M currency report'. */
function McoinReport() {
  const t = useT();
  const dispatch = useAppDispatch();
  const { mcoin } = useAppSelector(selectVip);
  useEffect(() => {
    dispatch(vipActions.mcoinRequested());
  }, [dispatch]);
  const data = mcoin.data;
  return (
    <section className="card" data-testid="vip-mbdetails">
      <h1 className="section-title">{t('vip.mcoin_report')}</h1>
      {data && (
        <div className="vip-mcoin">
          <div><span>{t('vip.mcoin_balance')}</span><strong data-testid="vip-mcoin-balance">{data.balance}</strong></div>
          <div><span>{t('vip.mcoin_earned')}</span><strong>{data.earned}</strong></div>
          <div><span>{t('vip.mcoin_spent')}</span><strong>{data.spent}</strong></div>
        </div>
      )}
      {data && <p className="vip-hint">{t('vip.mcoin_rule', data.per_turnover)}</p>}
      {mcoin.status === 'ready' && data && <Rows rows={data.list} field="score" />}
      {mcoin.status === 'loading' && <div className="page-loading" aria-busy="true" />}
    </section>
  );
}

/** /hallofhonor/newhonor: the rewards received (gift, salary, rebate) and what each must turn over. */
function NewHonor() {
  const t = useT();
  const { detail } = useDetail();
  if (!detail) return <div className="page-loading" aria-busy="true" />;
  return (
    <section className="card" data-testid="vip-newhonor">
      <h1 className="section-title">{t('vip.new_honor')}</h1>
      {detail.rewards.length === 0 ? (
        <p className="vip-empty">{t('empty.no_data')}</p>
      ) : (
        <table className="vip-table">
          <thead><tr><th>{t('vip.time')}</th><th>{t('vip.kind')}</th><th>{t('vip.amount')}</th><th>{t('vip.turnover_required')}</th></tr></thead>
          <tbody>
            {detail.rewards.map((r) => (
              <tr key={r.reference}>
                <td>{formatTime(r.time)}</td>
                <td>{t(`vip.reward.${r.kind}`)} <small>{r.key}</small></td>
                <td>{r.amount}</td>
                <td>{r.turnover_required}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
