/**
 * /usercenter/deposit and /usercenter/depositprogress (spec 001 sections 2.1, 7.3):
 * channel choice (provider, bank transfer, USDT), quick amounts per currency, the
 * confirm-deposit popup, the order with its pay page (the sandbox provider, a stand-in),
 * bank details or the USDT address and quote; the open orders with their status.
 */
import { useEffect, useState } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { formatMoney } from '../../shared/money';
import { balanceActions } from '../balance/balanceSlice';
import { useT } from '../i18n/useT';
import { payApi, type CreatedOrder, type Order } from './api';
import { amountRule } from './money';
import { ErrorLine, PayPage, PayPopup, Rows, fmtTime, useAction, useLoad } from './parts';

export function DepositPage() {
  const t = useT();
  const channels = useLoad(payApi.channels);
  const [channel, setChannel] = useState('provider');
  const [chain, setChain] = useState('TRC20');
  const [amount, setAmount] = useState('');
  const [touched, setTouched] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [order, setOrder] = useState<CreatedOrder | null>(null);
  const [quote, setQuote] = useState('');
  const action = useAction();
  const info = channels.data;
  const limits = info?.channels.find((c) => c.channel === channel);
  const rule = amountRule(amount, limits?.min, limits?.max, 'deposit');
  const ruleText = rule ? t(rule.key, ...rule.args) : '';

  // the quote shows only for a valid USDT amount (the last one fetched until the next arrives)
  const quoteShown = channel === 'usdt' && !rule ? quote : '';
  useEffect(() => {
    if (channel !== 'usdt' || rule) return;
    const id = setTimeout(() => {
      payApi.rate(amount).then((q) => setQuote(t('pay.usdt_quote', q.usdt_amount ?? '', q.rate))).catch(() => setQuote(''));
    }, 400);
    return () => clearTimeout(id);
  }, [channel, amount, rule, t]);

  const submit = async () => {
    setConfirming(false);
    const created = await action.run(() => payApi.deposit(channel, amount, channel === 'usdt' ? chain : undefined));
    if (created) setOrder(created);
  };

  if (order) return <OrderView order={order} onDone={() => { setOrder(null); setAmount(''); setTouched(false); }} />;
  return (
    <PayPage title={t('pay.title.deposit')} testId="deposit-page">
      <ErrorLine text={channels.error} />
      {info && (
        <div className="form">
          <div className="tabs" role="tablist">
            {info.channels.map((c) => (
              <button key={c.channel} type="button" role="tab" aria-selected={channel === c.channel}
                className={`tabs__tab${channel === c.channel ? ' is-active' : ''}`} data-testid={`channel-${c.channel}`}
                onClick={() => setChannel(c.channel)}>{t(`pay.channel.${c.channel}`)}</button>
            ))}
          </div>
          {channel === 'provider' && <p className="form__note">{t('pay.sandbox_note')}</p>}
          {channel === 'usdt' && (
            <div className="pay__chips" role="group" aria-label={t('pay.chain')}>
              {info.chains.map((c) => (
                <button key={c.chain} type="button" className={`pay__chip${chain === c.chain ? ' is-active' : ''}`}
                  onClick={() => setChain(c.chain)}>{c.chain}</button>
              ))}
            </div>
          )}
          <div className="pay__chips" role="group" aria-label={t('pay.quick_amounts')}>
            {info.quick_amounts.map((q) => (
              <button key={q} type="button" className={`pay__chip${amount === q ? ' is-active' : ''}`} data-testid="quick-amount"
                onClick={() => { setAmount(q); setTouched(true); }}>{formatMoney(q)}</button>
            ))}
          </div>
          <label className="field__label">{t('pay.amount')} ({info.currency})
            <div className="field__row">
              <input className="field__input" inputMode="decimal" value={amount} data-testid="deposit-amount"
                placeholder={limits ? t('pay.range', formatMoney(limits.min), formatMoney(limits.max)) : ''}
                onChange={(e) => setAmount(e.target.value.replace(/[^\d.]/g, '').slice(0, 15))} onBlur={() => setTouched(true)} />
            </div>
          </label>
          {touched && <ErrorLine text={ruleText} />}
          {quoteShown && <p className="form__note" data-testid="usdt-quote">{quoteShown}</p>}
          <ErrorLine text={action.error} />
          <button type="button" className="btn btn--gold btn--block" data-testid="deposit-submit" disabled={action.pending}
            onClick={() => { setTouched(true); if (!rule) setConfirming(true); }}>{t('pay.deposit_now')}</button>
        </div>
      )}
      {confirming && info && (
        <PayPopup title={t('pay.confirm_deposit')} testId="confirm-deposit" onClose={() => setConfirming(false)}
          actions={<button type="button" className="btn btn--gold" data-testid="confirm-deposit-ok" onClick={submit}>{t('common.confirm')}</button>}>
          <Rows rows={[[t('pay.channel_label'), t(`pay.channel.${channel}`)], [t('pay.amount'), `${formatMoney(amount)} ${info.currency}`],
            ...(channel === 'usdt' ? [[t('pay.chain'), chain] as [string, string]] : [])]} />
        </PayPopup>
      )}
    </PayPage>
  );
}

/** The order just created: where and how to pay. */
function OrderView({ order, onDone }: { order: CreatedOrder; onDone: () => void }) {
  const t = useT();
  const action = useAction();
  const [confirmed, setConfirmed] = useState(false);
  return (
    <PayPage title={t('pay.title.deposit')} testId="deposit-order">
      <Rows rows={[[t('pay.order'), order.orderid], [t('pay.amount'), `${formatMoney(order.amount)} ${order.currency}`],
        [t('pay.expires'), fmtTime(order.expires)]]} />
      {order.channel === 'provider' && (
        <>
          <p className="form__note">{t('pay.sandbox_note')}</p>
          <a className="btn btn--gold btn--block" href={order.pay_url} data-testid="pay-link">{t('pay.go_pay')}</a>
        </>
      )}
      {order.bank && (
        <>
          <p className="form__note">{t('pay.bank_note')}</p>
          <Rows rows={[[t('pay.bank_name'), order.bank.bank_name], [t('pay.bank_account'), order.bank.account],
            [t('pay.bank_holder'), order.bank.holder], [t('pay.bank_reference'), order.bank.reference]]} />
          {confirmed ? <p className="form__ok">{t('pay.bank_confirmed')}</p> : (
            <button type="button" className="btn btn--gold btn--block" disabled={action.pending}
              onClick={async () => { if ((await action.run(() => payApi.confirmOrder(order.orderid))) !== null) setConfirmed(true); }}>
              {t('pay.bank_sent')}
            </button>
          )}
        </>
      )}
      {order.usdt && (
        <>
          <p className="form__note">{t('pay.usdt_note', order.usdt.confirmations)}</p>
          <Rows rows={[[t('pay.chain'), order.usdt.chain], [t('pay.usdt_address'), <code key="a" className="pay__code">{order.usdt.address}</code>],
            [t('pay.usdt_amount'), `${order.usdt.usdt_amount} USDT`], [t('pay.usdt_rate'), order.usdt.rate],
            [t('pay.quote_expires'), fmtTime(order.usdt.quote_expires)]]} />
        </>
      )}
      <ErrorLine text={action.error} />
      <div className="pay__actions">
        <button type="button" className="btn btn--ghost-dark" disabled={action.pending}
          onClick={async () => { if ((await action.run(() => payApi.cancelOrder(order.orderid))) !== null) onDone(); }}>
          {t('pay.cancel_order')}
        </button>
        <button type="button" className="btn btn--ghost-dark" onClick={onDone}>{t('pay.new_deposit')}</button>
      </div>
    </PayPage>
  );
}

export function DepositProgressPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const list = useLoad(() => payApi.orders('report/depositprogress', { preset: 'month', pn: 100 }));
  const action = useAction();
  useEffect(() => {
    dispatch(balanceActions.refreshRequested());
    const id = setInterval(list.reload, 5000);
    return () => clearInterval(id);
  }, [dispatch, list.reload]);
  return (
    <PayPage title={t('pay.title.depositprogress')} testId="deposit-progress">
      <ErrorLine text={list.error || action.error} />
      {list.data && list.data.list.length === 0 && <p className="pay__empty">{t('empty.no_data')}</p>}
      <ul className="pay__list">
        {list.data?.list.map((o: Order) => (
          <li key={o.orderid} className="pay__item" data-testid="deposit-progress-item">
            <div className="pay__item-head"><b>{formatMoney(o.amount)} {o.currency}</b>
              <span className={`pay__status pay__status--${o.status}`}>{t(`pay.status.${o.status}`)}</span></div>
            <div className="pay__item-meta">{t(`pay.channel.${o.channel}`)} · {o.orderid} · {fmtTime(o.created)}</div>
            {['created', 'confirmed'].includes(o.status) && (
              <div className="pay__actions">
                {o.channel === 'provider' && (
                  <button type="button" className="btn btn--sm btn--gold"
                    onClick={async () => { const f = await action.run(() => payApi.frame(o.orderid)); if (f?.url) window.location.assign(f.url); }}>
                    {t('pay.go_pay')}</button>
                )}
                <button type="button" className="btn btn--sm btn--ghost-dark"
                  onClick={async () => { await action.run(() => payApi.cancelOrder(o.orderid)); list.reload(); }}>{t('pay.cancel_order')}</button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </PayPage>
  );
}
