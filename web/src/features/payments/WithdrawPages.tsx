/**
 * /usercenter/withdraw and its six sub-pages (spec 001 section 2.1): the withdrawal form
 * with the bank-change popup (choose a bound card or address) and the confirm-withdraw
 * popup; managing and adding bank cards and USDT addresses; the withdrawal progress
 * (cancel while requested where allowed, delete a finished one); the transfer page.
 */
import { useState } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { Link, navigate } from '../../app/router';
import { formatMoney } from '../../shared/money';
import { balanceActions } from '../balance/balanceSlice';
import { useT } from '../i18n/useT';
import { payApi, type Account } from './api';
import { amountRule, isAmount } from './money';
import { ErrorLine, PayPage, PayPopup, Rows, fmtTime, useAction, useLoad } from './parts';

const WITHDRAW = '/usercenter/withdraw';

export function WithdrawPage({ sub }: { sub?: string }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const balance = useLoad(payApi.balance);
  const accounts = useLoad(async () => [...(await payApi.cards()).list, ...(await payApi.usdtAddresses()).list]);
  const [chosen, setChosen] = useState('');
  const [amount, setAmount] = useState('');
  const [fundpass, setFundpass] = useState('');
  const [touched, setTouched] = useState(false);
  const [changing, setChanging] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [done, setDone] = useState<{ orderid: string; amount: string; currency: string } | null>(null);
  const action = useAction();
  const list = accounts.data ?? [];
  const account: Account | undefined = list.find((a) => a.id === chosen) ?? list[0];
  const rule = amountRule(amount, undefined, balance.data?.balance && isAmount(balance.data.balance) ? balance.data.balance : undefined, 'withdraw');
  const submit = async () => {
    setConfirming(false);
    if (!account) return;
    const result = await action.run(() => payApi.withdraw({ amount, bank_id: account.id, fundpass }));
    if (result) {
      setDone(result);
      setFundpass('');
      dispatch(balanceActions.refreshRequested());
      balance.reload();
    }
  };
  return (
    <PayPage title={t(sub === 'submitwithdraw' ? 'pay.title.submitwithdraw' : 'pay.title.withdraw')} testId="withdraw-page">
      {balance.data && (
        <Rows rows={[[t('pay.available'), `${formatMoney(balance.data.balance)} ${balance.data.currency}`],
          [t('pay.frozen'), `${formatMoney(balance.data.frozen_balance)} ${balance.data.currency}`]]} />
      )}
      <ErrorLine text={balance.error || accounts.error} />
      <nav className="pay__links">
        <Link href={`${WITHDRAW}/managebankcard`}>{t('pay.title.managebankcard')}</Link>
        <Link href={`${WITHDRAW}/manageusdt`}>{t('pay.title.manageusdt')}</Link>
        <Link href={`${WITHDRAW}/withdrawprogress`} data-testid="withdraw-progress-link">{t('pay.title.withdrawprogress')}</Link>
      </nav>
      {done ? (
        <div className="form" data-testid="withdraw-done">
          <p className="form__ok">{t('pay.withdraw_submitted', done.orderid)}</p>
          <button type="button" className="btn btn--gold btn--block" onClick={() => navigate(`${WITHDRAW}/withdrawprogress`)}>
            {t('pay.title.withdrawprogress')}</button>
        </div>
      ) : accounts.data && list.length === 0 ? (
        <div className="form">
          <p className="form__note">{t('pay.bind_first')}</p>
          <Link className="btn btn--gold btn--block" href={`${WITHDRAW}/addbankcard`} data-testid="add-card-link">{t('pay.title.addbankcard')}</Link>
          <Link className="btn btn--ghost-dark btn--block" href={`${WITHDRAW}/addusdt`}>{t('pay.title.addusdt')}</Link>
        </div>
      ) : account ? (
        <div className="form">
          <button type="button" className="pay__account" data-testid="bank-change" onClick={() => setChanging(true)}>
            <span>{account.bank_name}</span><span>{account.masked}</span><span aria-hidden="true">›</span>
          </button>
          <label className="field__label">{t('pay.amount')}
            <div className="field__row">
              <input className="field__input" inputMode="decimal" value={amount} data-testid="withdraw-amount"
                onChange={(e) => setAmount(e.target.value.replace(/[^\d.]/g, '').slice(0, 15))} onBlur={() => setTouched(true)} />
            </div>
          </label>
          {touched && rule && <ErrorLine text={t(rule.key, ...rule.args)} />}
          <label className="field__label">{t('pay.fund_password')}
            <div className="field__row">
              <input className="field__input" type="password" value={fundpass} data-testid="withdraw-fundpass"
                onChange={(e) => setFundpass(e.target.value.slice(0, 32))} />
            </div>
          </label>
          <ErrorLine text={action.error} />
          <button type="button" className="btn btn--gold btn--block" data-testid="withdraw-submit" disabled={action.pending}
            onClick={() => { setTouched(true); if (!rule && fundpass) setConfirming(true); }}>{t('pay.withdraw_now')}</button>
        </div>
      ) : null}
      {changing && (
        <PayPopup title={t('pay.bank_change')} testId="bank-change-popup" onClose={() => setChanging(false)}>
          <ul className="pay__list">
            {list.map((a) => (
              <li key={a.id}><button type="button" className={`pay__account${a.id === account?.id ? ' is-active' : ''}`}
                onClick={() => { setChosen(a.id); setChanging(false); }}>
                <span>{a.bank_name}</span><span>{a.masked}</span></button></li>
            ))}
          </ul>
        </PayPopup>
      )}
      {confirming && account && (
        <PayPopup title={t('pay.confirm_withdraw')} testId="confirm-withdraw" onClose={() => setConfirming(false)}
          actions={<button type="button" className="btn btn--gold" data-testid="confirm-withdraw-ok" onClick={submit}>{t('common.confirm')}</button>}>
          <Rows rows={[[t('pay.to_account'), `${account.bank_name} ${account.masked}`], [t('pay.amount'), formatMoney(amount)]]} />
        </PayPopup>
      )}
    </PayPage>
  );
}

export function AccountsPage({ kind }: { kind: 'card' | 'usdt' }) {
  const t = useT();
  const data = useLoad(() => (kind === 'card' ? payApi.cards() : payApi.usdtAddresses()), [kind]);
  const add = kind === 'card' ? 'addbankcard' : 'addusdt';
  return (
    <PayPage title={t(kind === 'card' ? 'pay.title.managebankcard' : 'pay.title.manageusdt')} back={WITHDRAW} testId={`manage-${kind}`}>
      <ErrorLine text={data.error} />
      {data.data && data.data.list.length === 0 && <p className="pay__empty">{t('empty.no_data')}</p>}
      <ul className="pay__list">
        {data.data?.list.map((a) => (
          <li key={a.id} className="pay__item"><div className="pay__item-head"><b>{a.bank_name}</b><span>{a.masked}</span></div>
            {a.holder && <div className="pay__item-meta">{a.holder}</div>}</li>
        ))}
      </ul>
      {data.data && data.data.list.length < data.data.max && (
        <Link className="btn btn--gold btn--block" href={`${WITHDRAW}/${add}`}>{t(`pay.title.${add}`)}</Link>
      )}
    </PayPage>
  );
}

export function AddAccountPage({ kind }: { kind: 'card' | 'usdt' }) {
  const t = useT();
  const [v, setV] = useState<Record<string, string>>({ chain: 'TRC20' });
  const action = useAction();
  const set = (k: string) => (e: { target: { value: string } }) => setV({ ...v, [k]: e.target.value.slice(0, 80) });
  const fields: Array<[string, string, string?]> = kind === 'card'
    ? [['bank_name', t('pay.bank_name')], ['card_number', t('pay.card_number')], ['holder', t('pay.bank_holder')], ['fundpass', t('pay.fund_password'), 'password']]
    : [['address', t('pay.usdt_address')], ['fundpass', t('pay.fund_password'), 'password']];
  const missing = fields.some(([k]) => !(v[k] ?? '').trim());
  const submit = async () => {
    const done = await action.run(() => (kind === 'card'
      ? payApi.addCard({ bank_name: v.bank_name!, card_number: v.card_number!, holder: v.holder!, fundpass: v.fundpass! })
      : payApi.addUsdt({ chain: v.chain!, address: v.address!, fundpass: v.fundpass! })));
    if (done) navigate(`${WITHDRAW}/${kind === 'card' ? 'managebankcard' : 'manageusdt'}`);
  };
  return (
    <PayPage title={t(kind === 'card' ? 'pay.title.addbankcard' : 'pay.title.addusdt')} back={WITHDRAW} testId={`add-${kind}`}>
      <div className="form">
        {kind === 'card' && <p className="form__note">{t('pay.card_rule')}</p>}
        {kind === 'usdt' && (
          <label className="field__label">{t('pay.chain')}
            <select className="field__input" value={v.chain} onChange={set('chain')}>
              <option value="TRC20">TRC20</option><option value="ERC20">ERC20</option>
            </select>
          </label>
        )}
        {fields.map(([k, label, type]) => (
          <label key={k} className="field__label">{label}
            <div className="field__row">
              <input className="field__input" type={type ?? 'text'} value={v[k] ?? ''} onChange={set(k)} data-testid={`field-${k}`} />
            </div>
          </label>
        ))}
        <ErrorLine text={action.error} />
        <button type="button" className="btn btn--gold btn--block" disabled={missing || action.pending} onClick={submit}
          data-testid="add-account-submit">{t('common.submit')}</button>
      </div>
    </PayPage>
  );
}

export function WithdrawProgressPage() {
  const t = useT();
  const list = useLoad(() => payApi.orders('report/withdrawprogress', { preset: 'month', pn: 100 }));
  const action = useAction();
  const act = async (call: () => Promise<unknown>) => { await action.run(call); list.reload(); };
  return (
    <PayPage title={t('pay.title.withdrawprogress')} back={WITHDRAW} testId="withdraw-progress">
      <ErrorLine text={list.error || action.error} />
      {list.data && list.data.list.length === 0 && <p className="pay__empty">{t('empty.no_data')}</p>}
      <ul className="pay__list">
        {list.data?.list.map((o) => (
          <li key={o.orderid} className="pay__item" data-testid="withdraw-progress-item">
            <div className="pay__item-head"><b>{formatMoney(o.amount)} {o.currency}</b>
              <span className={`pay__status pay__status--${o.status}`}>{t(`pay.status.${o.status}`)}</span></div>
            <div className="pay__item-meta">{o.orderid} · {fmtTime(o.created)}{o.note ? ` · ${o.note}` : ''}</div>
            <div className="pay__actions">
              {o.status === 'requested' && (
                <button type="button" className="btn btn--sm btn--ghost-dark" onClick={() => act(() => payApi.cancelWithdraw(o.orderid))}>
                  {t('pay.cancel_withdraw')}</button>
              )}
              {['paid', 'rejected', 'cancelled', 'failed'].includes(o.status) && (
                <button type="button" className="btn btn--sm btn--ghost-dark" onClick={() => act(() => payApi.deleteWithdraw(o.orderid))}>
                  {t('pay.delete')}</button>
              )}
            </div>
          </li>
        ))}
      </ul>
    </PayPage>
  );
}

export function TransferPage() {
  const t = useT();
  const dispatch = useAppDispatch();
  const games = useLoad(payApi.gameBalances);
  const balance = useLoad(payApi.balance);
  const [from, setFrom] = useState('main');
  const [to, setTo] = useState('demo');
  const [amount, setAmount] = useState('');
  const [success, setSuccess] = useState(false);
  const action = useAction();
  const places = ['main', ...(games.data?.list.map((g) => g.provider) ?? [])];
  const rule = amountRule(amount, undefined, undefined, 'amount');
  const submit = async () => {
    if (rule) return action.setError(t(rule.key, ...rule.args));
    if ((await action.run(() => payApi.transfer(from, to, amount))) !== null) {
      setSuccess(true);
      setAmount('');
      games.reload();
      balance.reload();
      dispatch(balanceActions.refreshRequested());
    }
  };
  const name = (p: string) => (p === 'main' ? t('pay.main_wallet') : t('pay.game_wallet', p));
  return (
    <PayPage title={t('pay.title.transfer')} testId="transfer-page">
      <Rows rows={[[t('pay.main_wallet'), balance.data ? formatMoney(balance.data.balance) : '…'],
        ...(games.data?.list.map((g) => [name(g.provider), formatMoney(g.balance)] as [string, string]) ?? [])]} />
      <div className="form">
        <div className="form__grid">
          <label className="field__label">{t('pay.from')}
            <select className="field__input" value={from} onChange={(e) => { setFrom(e.target.value); if (e.target.value !== 'main') setTo('main'); }}>
              {places.map((p) => <option key={p} value={p}>{name(p)}</option>)}
            </select>
          </label>
          <label className="field__label">{t('pay.to')}
            <select className="field__input" value={to} onChange={(e) => { setTo(e.target.value); if (e.target.value !== 'main') setFrom('main'); }}>
              {places.map((p) => <option key={p} value={p}>{name(p)}</option>)}
            </select>
          </label>
        </div>
        <label className="field__label">{t('pay.amount')}
          <div className="field__row">
            <input className="field__input" inputMode="decimal" value={amount} data-testid="transfer-amount"
              onChange={(e) => setAmount(e.target.value.replace(/[^\d.]/g, '').slice(0, 15))} />
          </div>
        </label>
        <ErrorLine text={action.error} />
        <button type="button" className="btn btn--gold btn--block" disabled={action.pending} onClick={submit} data-testid="transfer-submit">
          {t('pay.transfer_now')}</button>
      </div>
      {success && (
        <PayPopup title={t('pay.transfer_success')} testId="transfer-success" onClose={() => setSuccess(false)}>
          <p>{t('pay.transfer_success')}</p>
        </PayPopup>
      )}
    </PayPage>
  );
}

export const _testing = { fmtTime };
