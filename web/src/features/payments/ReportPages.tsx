/**
 * /fortunecenter (money orders with status and period filters and this month's
 * figures), /fortunecenter/reportcenter (Account change report: every wallet movement
 * with its kind, amount and balance after), /fortunecenter/flowreport (Flow Breakdown:
 * turnover required before withdrawal and done), /usercenter/monthlyCard.
 * Lists page past the first thousand rows ("More").
 */
import { useState } from 'react';
import { Link } from '../../app/router';
import { formatMoney } from '../../shared/money';
import { useT } from '../i18n/useT';
import { payApi, type Movement, type Order } from './api';
import { ErrorLine, PayPage, Presets, Rows, fmtTime, useLoad } from './parts';

const PAGE = 50;

function Figures({ r }: { r: Record<string, string> }) {
  const t = useT();
  return (
    <Rows rows={['deposits', 'withdrawals', 'bets', 'payouts', 'bonuses', 'profit'].map(
      (k) => [t(`pay.report.${k}`), `${formatMoney(r[k] ?? '0')} ${r.currency ?? ''}`] as [string, string])} />
  );
}

export function FortuneCenterPage() {
  const t = useT();
  const [preset, setPreset] = useState('week');
  const [status, setStatus] = useState('');
  const [kind, setKind] = useState('');
  const [pages, setPages] = useState(1);
  const centre = useLoad(payApi.userCentre);
  const orders = useLoad(async () => {
    const all: Order[] = [];
    let total = 0;
    for (let page = 1; page <= pages; page++) {
      const r = await payApi.orders('report/moneyorders', { preset, pn: PAGE, page, ...(status ? { status } : {}), ...(kind ? { kind } : {}) });
      all.push(...r.list);
      total = r.total;
    }
    return { list: all, total };
  }, [preset, status, kind, pages]);
  return (
    <PayPage title={t('pay.title.fortunecenter')} testId="fortune-center">
      <nav className="pay__links">
        <Link href="/usercenter/deposit">{t('pay.title.deposit')}</Link>
        <Link href="/usercenter/withdraw">{t('pay.title.withdraw')}</Link>
        <Link href="/fortunecenter/reportcenter">{t('pay.title.reportcenter')}</Link>
        <Link href="/fortunecenter/flowreport">{t('pay.title.flowreport')}</Link>
      </nav>
      {centre.data && <><h2 className="pay__h2">{t('pay.today')}</h2><Figures r={centre.data.today} /></>}
      <h2 className="pay__h2">{t('pay.money_orders')}</h2>
      <Presets value={preset} onChange={(p) => { setPreset(p); setPages(1); }} />
      <div className="form__grid">
        <select className="field__input" value={kind} onChange={(e) => { setKind(e.target.value); setPages(1); }} aria-label={t('pay.kind')}>
          <option value="">{t('pay.all')}</option><option value="deposit">{t('pay.kind.deposit')}</option>
          <option value="withdrawal">{t('pay.kind.withdrawal')}</option>
        </select>
        <select className="field__input" value={status} onChange={(e) => { setStatus(e.target.value); setPages(1); }} aria-label={t('pay.status_label')}>
          <option value="">{t('pay.all')}</option>
          {['created', 'credited', 'requested', 'approved', 'paid', 'rejected', 'cancelled', 'expired', 'failed', 'flagged'].map((s) => (
            <option key={s} value={s}>{t(`pay.status.${s}`)}</option>
          ))}
        </select>
      </div>
      <ErrorLine text={orders.error} />
      {orders.data && orders.data.list.length === 0 && <p className="pay__empty">{t('empty.no_data')}</p>}
      <ul className="pay__list">
        {orders.data?.list.map((o) => (
          <li key={o.orderid} className="pay__item" data-testid="money-order">
            <div className="pay__item-head"><b>{t(`pay.kind.${o.kind}`)} {formatMoney(o.amount)} {o.currency}</b>
              <span className={`pay__status pay__status--${o.status}`}>{t(`pay.status.${o.status}`)}</span></div>
            <div className="pay__item-meta">{o.orderid} · {t(`pay.channel.${o.channel}`)} · {fmtTime(o.created)}</div>
          </li>
        ))}
      </ul>
      {orders.data && orders.data.list.length < orders.data.total && (
        <button type="button" className="btn btn--ghost-dark btn--block" onClick={() => setPages(pages + 1)}>{t('pay.more')}</button>
      )}
    </PayPage>
  );
}

export function ReportCenterPage() {
  const t = useT();
  const [preset, setPreset] = useState('today');
  const [type, setType] = useState('');
  const [pages, setPages] = useState(1);
  const data = useLoad(async () => {
    const all: Movement[] = [];
    let total = 0;
    for (let page = 1; page <= pages; page++) {
      const r = await payApi.changes({ preset, pn: PAGE, page, ...(type ? { type } : {}) });
      all.push(...r.list);
      total = r.total;
    }
    return { list: all, total };
  }, [preset, type, pages]);
  return (
    <PayPage title={t('pay.title.reportcenter')} back="/fortunecenter" testId="report-center">
      <Presets value={preset} onChange={(p) => { setPreset(p); setPages(1); }} />
      <select className="field__input" value={type} onChange={(e) => { setType(e.target.value); setPages(1); }} aria-label={t('pay.kind')}>
        <option value="">{t('pay.all')}</option>
        {['deposit', 'withdrawal', 'bet', 'bet_refund', 'payout', 'bonus', 'freeze', 'unfreeze', 'adjustment'].map((k) => (
          <option key={k} value={k}>{t(`pay.move.${k}`)}</option>
        ))}
      </select>
      <ErrorLine text={data.error} />
      {data.data && data.data.list.length === 0 && <p className="pay__empty">{t('empty.no_data')}</p>}
      <table className="pay__table">
        <thead><tr><th>{t('pay.time')}</th><th>{t('pay.kind')}</th><th>{t('pay.amount')}</th><th>{t('pay.balance_after')}</th></tr></thead>
        <tbody>
          {data.data?.list.map((m) => (
            <tr key={`${m.wallet}-${m.sequence}`} data-testid="account-change">
              <td>{fmtTime(m.time)}</td>
              <td>{t(`pay.move.${m.kind}`)}{m.wallet !== 'main' ? ` (${m.wallet})` : ''}</td>
              <td className={m.amount.startsWith('-') ? 'pay__neg' : 'pay__pos'}>{m.amount.startsWith('-') ? '' : '+'}{formatMoney(m.amount)}</td>
              <td>{formatMoney(m.balance_after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data.data && data.data.list.length < data.data.total && (
        <button type="button" className="btn btn--ghost-dark btn--block" onClick={() => setPages(pages + 1)}>{t('pay.more')}</button>
      )}
    </PayPage>
  );
}

export function FlowReportPage() {
  const t = useT();
  const data = useLoad(payApi.flow);
  const f = data.data;
  return (
    <PayPage title={t('pay.title.flowreport')} back="/fortunecenter" testId="flow-report">
      <ErrorLine text={data.error} />
      {f && (
        <>
          <Rows rows={[[t('pay.flow.required'), formatMoney(f.required)], [t('pay.flow.done'), formatMoney(f.done)],
            [t('pay.flow.remaining'), formatMoney(f.remaining)]]} />
          <ul className="pay__list">
            {f.list.map((c) => (
              <li key={c.reference} className="pay__item">
                <div className="pay__item-head"><b>{t(`pay.move.${c.kind}`)} {formatMoney(c.amount)}</b>
                  <span className={`pay__status pay__status--${c.complete ? 'credited' : 'requested'}`}>
                    {formatMoney(c.done)} / {formatMoney(c.required)}</span></div>
                <div className="pay__item-meta">{fmtTime(c.time)}</div>
              </li>
            ))}
          </ul>
        </>
      )}
    </PayPage>
  );
}

export function MonthlyCardPage() {
  const t = useT();
  const data = useLoad(() => payApi.memberReport({ preset: 'month' }));
  return (
    <PayPage title={t('pay.title.monthlyCard')} testId="monthly-card">
      <p className="form__note">{t('pay.monthly_note')}</p>
      <ErrorLine text={data.error} />
      {data.data && <Figures r={data.data} />}
    </PayPage>
  );
}
