/**
 * The finance desk (role finance or admin; docs/payments.md): withdrawals waiting for
 * review or payout (approve / reject with a reason, then paid / failed), flagged
 * deposits (credit what arrived or reject), the member's money history beside the
 * chosen order, and the reconciliation of provider transactions against credits.
 * Plain calls to /api/backoffice/payments (not the saga's queue: this desk is its own).
 */
import { useCallback, useEffect, useState } from 'react';
import { useAppSelector } from '../../app/hooks';
import type { Translate } from '../i18n/translate';
import { useT } from '../i18n/useT';
import { boFetch, toBoError, type BoError } from './api';
import { selectBackoffice } from './backofficeSlice';
import { ErrorBox, Panel, Time, money } from './parts';

interface FinanceOrder {
  orderid: string; kind: string; channel: string; currency: string; amount: string; status: string; note: string;
  username: string; member_id: string; created: number; flagged: boolean; detail: Record<string, unknown>;
}
type Tab = 'withdrawals' | 'deposits' | 'reconciliation';

/** An order or provider status (requested, flagged, paid ...) in the staff's language; an unknown one as sent. */
export function statusText(t: Translate, status: string | null | undefined): string {
  if (!status) return '';
  const key = `pay.status.${status}`;
  const text = t(key);
  return text === key ? status : text;
}

function useBo() {
  const token = useAppSelector((s) => selectBackoffice(s).auth?.token ?? null);
  return useCallback(<T,>(method: 'GET' | 'POST', path: string, body?: unknown) => boFetch<T>({ method, path, body, token }), [token]);
}

export function FinancePage() {
  const t = useT();
  const bo = useBo();
  const [tab, setTab] = useState<Tab>('withdrawals');
  const [list, setList] = useState<FinanceOrder[]>([]);
  const [recon, setRecon] = useState<{ list: Array<Record<string, string | null>>; differences: number } | null>(null);
  const [error, setError] = useState<BoError | null>(null);
  const [chosen, setChosen] = useState<FinanceOrder | null>(null);
  const [reason, setReason] = useState('');
  const [done, setDone] = useState('');
  const load = useCallback(async () => {
    try {
      if (tab === 'reconciliation') {
        setRecon(await bo<{ list: Array<Record<string, string | null>>; differences: number }>('GET', '/payments/reconciliation'));
      } else {
        const r = await bo<{ list: FinanceOrder[] }>('GET', `/payments/${tab}`);
        setList(r.list);
      }
      setError(null);
    } catch (e) {
      setError(toBoError(e));
    }
  }, [bo, tab]);
  useEffect(() => {
    void load();
    const id = setInterval(() => void load(), 5000);
    return () => clearInterval(id);
  }, [load]);
  const decide = async (order: FinanceOrder, action: string, body: Record<string, unknown>) => {
    try {
      const path = order.kind === 'withdrawal' ? `/payments/withdrawals/${order.orderid}/${action}` : `/payments/deposits/${order.orderid}/review`;
      await bo('POST', path, body);
      setDone(t(`bo.finance.done.${order.kind}.${action}`, order.orderid));
      setReason('');
      setChosen(null);
      await load();
    } catch (e) {
      setError(toBoError(e));
    }
  };
  return (
    <Panel title={t('bo.finance.title')} testId="bo-finance"
      actions={
        <div className="bo-chips" role="radiogroup">
          {(['withdrawals', 'deposits', 'reconciliation'] as Tab[]).map((x) => (
            <button key={x} type="button" role="radio" aria-checked={tab === x} data-testid={`bo-finance-${x}`}
              className={tab === x ? 'bo-chip is-active' : 'bo-chip'} onClick={() => { setTab(x); setChosen(null); }}>{t(`bo.finance.${x}`)}</button>
          ))}
        </div>
      }>
      <ErrorBox error={error} />
      {done && <p className="bo-muted" role="status" data-testid="bo-finance-done">{done}</p>}
      {tab !== 'reconciliation' && (list.length === 0 ? <p className="bo-empty">{t('bo.finance.empty')}</p> : (
        <div className="bo-scroll">
          <table className="bo-table">
            <thead><tr><th>{t('bo.finance.order')}</th><th>{t('bo.finance.member')}</th><th>{t('bo.finance.amount')}</th>
              <th>{t('bo.finance.status')}</th><th>{t('bo.finance.time')}</th><th /></tr></thead>
            <tbody>
              {list.map((o) => (
                <tr key={o.orderid} data-testid="bo-finance-item" data-order={o.orderid}>
                  <td>{o.orderid}</td><td>{o.username || o.member_id}</td><td>{money(o.amount)} {o.currency}</td>
                  <td data-testid="bo-finance-status">{statusText(t, o.status)}{o.note ? ` (${o.note})` : ''}</td><td><Time value={o.created} /></td>
                  <td><button type="button" className="bo-chip" data-testid="bo-finance-open" onClick={() => setChosen(o)}>{t('bo.finance.open')}</button></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
      {chosen && <Decision order={chosen} reason={reason} setReason={setReason} decide={decide} />}
      {tab === 'reconciliation' && recon && (
        <>
          <p className="bo-muted" data-testid="bo-recon-differences">{t('bo.finance.differences', recon.differences)}</p>
          <div className="bo-scroll">
            <table className="bo-table">
              <thead><tr><th>{t('bo.finance.provider_tx')}</th><th>{t('bo.finance.order')}</th><th>{t('bo.finance.reported')}</th>
                <th>{t('bo.finance.credited')}</th><th>{t('bo.finance.difference')}</th></tr></thead>
              <tbody>
                {recon.list.map((r) => (
                  <tr key={`${r.event_id}`}><td>{r.provider_tx_id} ({statusText(t, r.status)})</td><td>{r.order_id} {statusText(t, r.order_status)}</td>
                    <td>{money(r.amount)} {r.currency}</td><td>{money(r.credited_amount)}</td><td>{r.difference}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Panel>
  );
}

function Decision({ order, reason, setReason, decide }: {
  order: FinanceOrder; reason: string; setReason: (v: string) => void;
  decide: (o: FinanceOrder, action: string, body: Record<string, unknown>) => Promise<void>;
}) {
  const t = useT();
  const bo = useBo();
  const [history, setHistory] = useState<{ orders: FinanceOrder[]; movements: Array<Record<string, string>> } | null>(null);
  useEffect(() => {
    bo<{ orders: FinanceOrder[]; movements: Array<Record<string, string>> }>('GET', `/payments/members/${encodeURIComponent(order.member_id)}`)
      .then(setHistory).catch(() => setHistory(null));
  }, [bo, order.member_id]);
  // the action waiting for its confirmation (money moves on every one of them)
  const [asked, setAsked] = useState<string | null>(null);
  const actions: Array<[string, Record<string, unknown>]> = order.kind === 'withdrawal'
    ? order.status === 'requested' ? [['approve', { reason }], ['reject', { reason }]] : [['paid', { reason }], ['failed', { reason }]]
    : [['credit', { credit: true, reason }], ['reject', { credit: false, reason }]];
  const confirmed = () => {
    const body = actions.find(([a]) => a === asked)?.[1];
    setAsked(null);
    if (asked && body) void decide(order, asked, body);
  };
  return (
    <div className="bo-panel" data-testid="bo-finance-decision">
      <h3>{order.orderid} · {money(order.amount)} {order.currency} · {order.username}</h3>
      <label className="bo-field">{t('bo.finance.reason')}
        <input value={reason} onChange={(e) => setReason(e.target.value.slice(0, 500))} data-testid="bo-finance-reason" />
      </label>
      <div className="bo-chips">
        {actions.map(([a]) => (
          <button key={a} type="button" className="bo-chip" data-testid={`bo-finance-${a}`} onClick={() => setAsked(a)}>
            {t(`bo.finance.action.${a}`)}</button>
        ))}
      </div>
      {asked && <ConfirmDecision order={order} action={asked} reason={reason} onCancel={() => setAsked(null)} onConfirm={confirmed} />}
      {history && (
        <>
          <h4>{t('bo.finance.history')}</h4>
          <div className="bo-scroll">
            <table className="bo-table">
              <tbody>
                {history.movements.slice(0, 20).map((m) => (
                  <tr key={`${m.wallet}-${m.sequence}`}><td><Time value={Number(m.time)} /></td><td>{m.kind}</td><td>{money(m.amount)}</td><td>{money(m.balance_after)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </div>
  );
}

/**
 * The confirmation of one finance action: it names the action, the order, its amount and the
 * member (and the reason given), so staff confirm what they mean and not a generic question.
 */
function ConfirmDecision({ order, action, reason, onCancel, onConfirm }: {
  order: FinanceOrder; action: string; reason: string; onCancel: () => void; onConfirm: () => void;
}) {
  const t = useT();
  const label = t(`bo.finance.action.${action}`);
  const giveBack = action === 'reject' || action === 'failed';
  return (
    <div className="bo-dialog" role="dialog" aria-modal="true" aria-label={label} data-testid="bo-finance-confirm"
      onKeyDown={(e) => e.key === 'Escape' && onCancel()}>
      <div className="bo-dialog__box">
        <h3>{label}</h3>
        <p data-testid="bo-finance-confirm-text">
          {t(`bo.finance.confirm.${order.kind}.${action}`, order.orderid, `${money(order.amount)} ${order.currency}`, order.username || order.member_id)}
        </p>
        {reason.trim() && <p className="bo-muted">{t('bo.finance.reason')}: {reason.trim()}</p>}
        <div className="bo-dialog__actions">
          <button type="button" className="bo-btn bo-btn--ghost-dark" autoFocus data-testid="bo-finance-confirm-cancel" onClick={onCancel}>
            {t('common.cancel')}</button>
          <button type="button" className={`bo-btn ${giveBack ? 'bo-btn--danger' : 'bo-btn--primary'}`} data-testid="bo-finance-confirm-ok" onClick={onConfirm}>
            {label}</button>
        </div>
      </div>
    </div>
  );
}
