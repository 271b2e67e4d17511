import { useEffect } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatMoney } from '../../shared/money';
import { formatOdds } from '../../shared/odds';
import { TYPE_KEYS } from '../history/model';
import { useT } from '../i18n/useT';
import { autoErrors, money2, partialError, sanitizeAmount, STEP, type Msg } from './calc';
import { cashoutActions, type CashoutScope, type CashoutWay } from './cashoutSlice';
import { selectCashout, selectCashoutView } from './selectors';
import './cashout.css';

const amountText = (v: number | null) => (v === null ? '—' : formatMoney(money2(v)));

function MsgText({ msg, testId }: { msg: Msg | null; testId?: string }) {
  const t = useT();
  if (!msg) return null;
  return <p className="field__error" role="alert" data-testid={testId}>{msg.key ? t(msg.key, ...(msg.args ?? [])) : msg.text}</p>;
}

/** The cash-out dialog (spec 000 sections 4, 5, 8): manual or auto, full or partial. */
export function CashoutDialog() {
  const t = useT();
  const dispatch = useAppDispatch();
  const s = useAppSelector(selectCashout);
  const view = useAppSelector(selectCashoutView);
  const close = () => dispatch(cashoutActions.closed());
  useEffect(() => () => void dispatch(cashoutActions.closed()), [dispatch]); // leaving the page closes it
  if (!s.bet) return null;
  const bet = s.bet;
  const currency = bet.currency;
  return (
    <div className="overlay overlay--sheet" role="dialog" aria-modal="true" aria-labelledby="cashout-title" data-testid="cashout-dialog"
      data-phase={view.phase}>
      <div className="sheet cashout">
        <div className="sheet__head">
          <h2 id="cashout-title" className="sheet__title">{t('cashout.title')}</h2>
          <button type="button" className="sheet__close" aria-label={t('common.close')} data-testid="cashout-close" onClick={close}>×</button>
        </div>
        <div className="sheet__body cashout__body">
          <dl className="cashout__facts">
            <dt>{t('betslip.bet_id')}</dt><dd>#{bet.id} · {t(TYPE_KEYS[bet.type] ?? 'betslip.type.single')}</dd>
            <dt>{t('betslip.stake')}</dt>
            <dd>{formatMoney(bet.amount)} {currency}{bet.remainingStake && <span className="cashout__muted"> ({t('cashout.remaining')} {formatMoney(bet.remainingStake)})</span>}</dd>
            <dt>{t('betslip.odds')}</dt><dd>{formatOdds(bet.k, 'decimal')}</dd>
            <dt>{t('history.possible_win')}</dt><dd>{formatMoney(money2(bet.possibleWin))} {currency}</dd>
          </dl>
          {view.phase === 'done' && s.done ? (
            <div className="cashout__done" data-testid="cashout-done">
              <div className="cashout__done-icon" aria-hidden="true">✓</div>
              <strong>{t('cashout.done')}</strong>
              <span data-testid="cashout-paid">{t('cashout.paid')} {formatMoney(s.done.amount)} {currency}</span>
              {s.done.status !== 5 && Number(s.done.remainingStake) > 0 && (
                <span className="cashout__muted">{t('cashout.remaining')} {formatMoney(s.done.remainingStake)} {currency}</span>
              )}
              <button type="button" className="btn btn--primary btn--block" data-testid="cashout-done-close" onClick={close}>{t('common.close')}</button>
            </div>
          ) : view.phase === 'notCashable' ? (
            <p className="cashout__notice" role="status" data-testid="cashout-not-cashable">{t('cashout.not_cashable')}</p>
          ) : view.phase === 'loading' ? (
            <div className="skeleton" aria-busy="true"><div className="skeleton__row" /><div className="skeleton__row" /></div>
          ) : view.phase === 'error' ? (
            <p className="cashout__notice" role="alert">{t('error.network')}</p>
          ) : (
            <>
              <div className="cashout__current">
                <span>{t('cashout.current')}</span>
                <strong data-testid="cashout-amount" data-amount={s.amount ?? ''}>{amountText(s.amount)} {currency}</strong>
              </div>
              <Segmented<CashoutWay> value={s.way} label={t('cashout.way')} testId="cashout-way"
                options={[{ value: 'manual', label: t('cashout.way.manual') }, { value: 'auto', label: t('cashout.way.auto') }]}
                onChange={(v) => dispatch(cashoutActions.wayChosen(v))} />
              {view.phase === 'ruleActive' ? <RuleActive /> : s.way === 'manual' ? <Manual /> : <Auto />}
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function Segmented<V extends string>({ value, options, onChange, label, testId, className = '' }: {
  value: V; options: Array<{ value: V; label: string }>; onChange: (v: V) => void; label: string; testId: string; className?: string;
}) {
  return (
    <div className={`seg cashout__seg ${className}`} role="radiogroup" aria-label={label}>
      {options.map((o) => (
        <button key={o.value} type="button" role="radio" aria-checked={o.value === value} data-testid={`${testId}-${o.value}`}
          className={o.value === value ? 'seg__item is-active' : 'seg__item'} onClick={() => onChange(o.value)}>{o.label}</button>
      ))}
    </div>
  );
}

function Manual() {
  const t = useT();
  const dispatch = useAppDispatch();
  const s = useAppSelector(selectCashout);
  const view = useAppSelector(selectCashoutView);
  const current = s.amount ?? 0;
  const partial = s.scope === 'partial';
  const invalid = partial ? partialError(s.partial, current) : null;
  const sendAmount = partial && !invalid ? Number(s.partial) : current;
  return (
    <div className="cashout__manual">
      <Segmented<CashoutScope> value={s.scope} label={t('cashout.scope')} testId="cashout-scope" className="cashout__seg--scope"
        options={[{ value: 'full', label: t('cashout.scope.full') }, { value: 'partial', label: t('cashout.scope.partial') }]}
        onChange={(v) => dispatch(cashoutActions.scopeChosen(v))} />
      {partial && (
        <div className="cashout__partial">
          <label className="cashout__label" htmlFor="cashout-partial">{t('cashout.partial_amount')}</label>
          <div className="cashout__slider-row">
            <input id="cashout-partial-range" type="range" className="cashout__range" min={view.partial.min} max={view.partial.max} step={STEP}
              value={Number.isFinite(Number(s.partial)) ? Math.min(Number(s.partial), view.partial.max) : view.partial.min}
              aria-label={t('cashout.partial_amount')} data-testid="cashout-partial-range"
              onChange={(e) => dispatch(cashoutActions.partialChanged(money2(Number(e.target.value))))} />
            <input id="cashout-partial" type="text" inputMode="decimal" className="cashout__input" value={s.partial}
              data-testid="cashout-partial-input" onChange={(e) => dispatch(cashoutActions.partialChanged(sanitizeAmount(e.target.value)))} />
          </div>
          <div className="cashout__bounds"><span>{money2(view.partial.min)}</span><span>{money2(view.partial.max)}</span></div>
          <MsgText msg={s.partial !== '' ? invalid : null} testId="cashout-partial-error" />
        </div>
      )}
      {s.suggested !== null && (
        <div className="cashout__moved" role="alert" data-testid="cashout-fail">
          <strong>{t('cashout.cannot')}</strong>
          <span>{t('cashout.suggested', formatMoney(money2(s.suggested)))}</span>
          <button type="button" className="btn btn--gold btn--sm" data-testid="cashout-accept-suggested" disabled={s.cashing}
            onClick={() => dispatch(cashoutActions.cashoutRequested(s.suggested!))}>{t('cashout.accept_suggested')}</button>
        </div>
      )}
      <MsgText msg={s.error} testId="cashout-error" />
      <button type="button" className="btn btn--gold btn--block" data-testid="cashout-submit" aria-busy={s.cashing}
        disabled={s.cashing || Boolean(invalid) || s.amount === null || s.suggested !== null}
        onClick={() => dispatch(cashoutActions.cashoutRequested())}>
        {s.cashing ? t('common.please_wait') : t('cashout.submit', formatMoney(money2(sendAmount)))}
      </button>
    </div>
  );
}

function Auto() {
  const t = useT();
  const dispatch = useAppDispatch();
  const s = useAppSelector(selectCashout);
  const view = useAppSelector(selectCashoutView);
  const errors = autoErrors(s.auto.trigger, s.auto.partial, view.auto);
  if (!view.autoPossible) return <p className="cashout__notice" data-testid="cashout-auto-unavailable">{t('cashout.auto.unavailable')}</p>;
  return (
    <form className="cashout__auto" noValidate onSubmit={(e) => (e.preventDefault(), dispatch(cashoutActions.ruleRequested()))}>
      <label className="cashout__label" htmlFor="cashout-trigger">{t('cashout.auto.trigger')}</label>
      <input id="cashout-trigger" type="text" inputMode="decimal" className="cashout__input cashout__input--wide" value={s.auto.trigger}
        placeholder={money2(view.auto.min)} data-testid="cashout-trigger"
        onChange={(e) => dispatch(cashoutActions.triggerChanged(sanitizeAmount(e.target.value)))} />
      <p className="cashout__hint" data-testid="cashout-auto-bounds">{t('cashout.auto.bounds', formatMoney(money2(view.auto.min)), formatMoney(money2(view.auto.max)))}</p>
      <MsgText msg={s.auto.trigger !== '' ? errors.trigger : null} testId="cashout-trigger-error" />
      <label className="cashout__label" htmlFor="cashout-auto-partial">{t('cashout.auto.partial')}</label>
      <input id="cashout-auto-partial" type="text" inputMode="decimal" className="cashout__input cashout__input--wide" value={s.auto.partial}
        data-testid="cashout-auto-partial" onChange={(e) => dispatch(cashoutActions.autoPartialChanged(sanitizeAmount(e.target.value)))} />
      <p className="cashout__hint">{t('cashout.auto.partial_hint')}</p>
      <MsgText msg={errors.partial} testId="cashout-auto-partial-error" />
      {s.auto.error && (
        <div role="alert" data-testid="cashout-auto-error">
          <MsgText msg={s.auto.error} />
          {s.auto.serverBounds && (
            <p className="cashout__hint">{t('cashout.auto.bounds', formatMoney(money2(s.auto.serverBounds.min)), formatMoney(money2(s.auto.serverBounds.max)))}</p>
          )}
        </div>
      )}
      <button type="submit" className="btn btn--gold btn--block" data-testid="cashout-set-rule" aria-busy={s.auto.saving}
        disabled={s.auto.saving || Boolean(errors.trigger || errors.partial)}>
        {s.auto.saving ? t('common.please_wait') : t('cashout.auto.set')}
      </button>
    </form>
  );
}

function RuleActive() {
  const t = useT();
  const dispatch = useAppDispatch();
  const s = useAppSelector(selectCashout);
  const rule = s.rule!;
  return (
    <div className="cashout__rule" data-testid="cashout-rule">
      <strong>{t('cashout.rule.title')}</strong>
      <dl className="cashout__facts">
        <dt>{t('cashout.rule.min')}</dt><dd data-testid="cashout-rule-min">{formatMoney(String(rule.MinAmount))}</dd>
        <dt>{t('cashout.rule.partial')}</dt>
        <dd data-testid="cashout-rule-partial">{rule.PartialAmount !== null ? formatMoney(String(rule.PartialAmount)) : t('cashout.rule.full')}</dd>
      </dl>
      <MsgText msg={s.auto.error} testId="cashout-rule-error" />
      <button type="button" className="btn btn--ghost-dark btn--block" data-testid="cashout-cancel-rule" disabled={s.auto.cancelling}
        onClick={() => dispatch(cashoutActions.ruleCancelRequested())}>{s.auto.cancelling ? t('common.please_wait') : t('cashout.rule.cancel')}</button>
    </div>
  );
}
