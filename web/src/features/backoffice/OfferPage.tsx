import { useEffect, useState, type FormEvent } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Link } from '../../app/router';
import { sanitizeAmount } from '../cashout/calc';
import { OUTCOME, STATUS_KEYS, SUPER_BET, TYPE_KEYS } from '../history/model';
import { useT } from '../i18n/useT';
import { backofficeActions as bo, selectBackoffice } from './backofficeSlice';
import { hasErrors, offerBody, validateDecline, validateOffer, type FieldMsg, type OfferErrors } from './forms';
import { ErrorBox, Loading, Panel, StatusBadge, SuperBadge, Time, money, odds } from './parts';
import { sectionPath } from './roles';
import { selectionOf, type OfferDetail } from './types';

/** One super bet: the bet, the member (balance, limit, recent bets) and the support decisions. */
export function OfferPage({ betId }: { betId: string }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const detail = useAppSelector((s) => selectBackoffice(s).detail);
  useEffect(() => {
    dispatch(bo.detailRequested(betId));
    return () => void dispatch(bo.detailWatchStopped());
  }, [dispatch, betId]);
  const data = detail.betId === betId ? detail.data : null;
  return (
    <div className="bo-stack" data-testid="bo-offer-page">
      <Link href={sectionPath('queue')} className="bo-back" data-testid="bo-back">← {t('bo.nav.queue')}</Link>
      <ErrorBox error={detail.error} />
      {!data ? (detail.status === 'loading' ? <Loading /> : null) : (
        <div className="bo-columns bo-columns--offer">
          <div className="bo-stack">
            <BetPanel data={data} />
            <Decisions data={data} />
          </div>
          <div className="bo-stack">
            <MemberPanel data={data} />
            <RecentPanel data={data} />
          </div>
        </div>
      )}
    </div>
  );
}

function BetPanel({ data }: { data: OfferDetail }) {
  const t = useT();
  const b = data.bet;
  return (
    <Panel title={t('bo.detail.title', String(b.bet_id))} testId="bo-bet">
      <div className="bo-card__badges"><StatusBadge status={b.status} /><SuperBadge status={b.super_bet_status} /></div>
      <dl className="bo-facts">
        <dt>{t('bo.col.type')}</dt><dd>{t(TYPE_KEYS[b.type] ?? 'betslip.type.single')}</dd>
        <dt>{t('bo.col.stake')}</dt><dd data-testid="bo-bet-amount">{money(b.amount)} {b.currency}</dd>
        <dt>{t('bo.col.odds')}</dt><dd data-testid="bo-bet-odds">{odds(b.k)}</dd>
        <dt>{t('bo.col.possible_win')}</dt><dd>{money(b.possible_win)} {b.currency}</dd>
        <dt>{t('bo.col.placed')}</dt><dd><Time value={b.placed_at} /></dd>
      </dl>
      <table className="bo-table" data-testid="bo-bet-selections">
        <thead><tr><th>{t('bo.col.event')}</th><th>{t('bo.col.selection')}</th><th className="num">{t('bo.col.odds')}</th></tr></thead>
        <tbody>
          {(b.events ?? []).map(selectionOf).map((e) => (
            <tr key={e.key}><td>{e.game}<div className="bo-muted">{e.market}</div></td><td>{e.selection}</td><td className="num">{odds(e.price)}</td></tr>
          ))}
        </tbody>
      </table>
      {b.counter_offer && (
        <div className="bo-offered" data-testid="bo-bet-offered">
          <strong>{t('bo.detail.offered')}</strong>
          <dl className="bo-facts">
            {b.counter_offer.amount ? (<><dt>{t('bo.col.stake')}</dt><dd>{money(b.counter_offer.amount)} {b.currency}</dd></>) : null}
            {b.counter_offer.price ? (<><dt>{t('bo.col.odds')}</dt><dd>{odds(b.counter_offer.price)}</dd></>) : null}
            {b.counter_offer.reason ? (<><dt>{t('bo.reason')}</dt><dd>{b.counter_offer.reason}</dd></>) : null}
            {b.counter_offer.at ? (<><dt>{t('bo.col.time')}</dt><dd><Time value={b.counter_offer.at} /></dd></>) : null}
          </dl>
        </div>
      )}
    </Panel>
  );
}

function MemberPanel({ data }: { data: OfferDetail }) {
  const t = useT();
  const m = data.member;
  return (
    <Panel title={t('bo.detail.member')} testId="bo-member">
      <dl className="bo-facts">
        <dt>{t('bo.username')}</dt><dd data-testid="bo-member-name">{m.username}</dd>
        <dt>{t('bo.user_id')}</dt><dd>{m.user_id}</dd>
        <dt>{t('bo.detail.balance')}</dt><dd>{money(m.balance)} {m.currency}</dd>
        <dt>{t('bo.detail.max_stake')}</dt><dd data-testid="bo-member-limit">{money(m.max_stake)} {m.max_stake ? m.currency : ''}</dd>
      </dl>
    </Panel>
  );
}

function RecentPanel({ data }: { data: OfferDetail }) {
  const t = useT();
  return (
    <Panel title={t('bo.detail.recent')} testId="bo-recent">
      {data.recent.length === 0 ? <p className="bo-empty">{t('bo.no_data')}</p> : (
        <div className="bo-scroll">
          <table className="bo-table">
            <thead>
              <tr><th>{t('bo.col.bet')}</th><th>{t('bo.col.placed')}</th><th>{t('bo.col.type')}</th>
                <th className="num">{t('bo.col.stake')}</th><th className="num">{t('bo.col.odds')}</th><th>{t('bo.col.status')}</th></tr>
            </thead>
            <tbody>
              {data.recent.map((r) => (
                <tr key={String(r.id)}>
                  <td>#{r.BetId ?? r.id}</td><td><Time value={r.date_time} /></td><td>{t(TYPE_KEYS[r.type] ?? 'betslip.type.single')}</td>
                  <td className="num">{money(r.amount)}</td><td className="num">{odds(r.k)}</td><td>{t(STATUS_KEYS[r.outcome] ?? '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  );
}

function FieldError({ msg, testId }: { msg: FieldMsg | null | undefined; testId: string }) {
  const t = useT();
  return msg ? <em className="bo-field__error" role="alert" data-testid={testId}>{t(msg.key, ...(msg.args ?? []))}</em> : null;
}

/** Offer (stake and/or odds, reason), accept as asked, decline (reason required). */
function Decisions({ data }: { data: OfferDetail }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const decision = useAppSelector((s) => selectBackoffice(s).decision);
  const betId = String(data.bet.bet_id);
  const [offer, setOffer] = useState({ amount: '', price: '', reason: '' });
  const [offerErrors, setOfferErrors] = useState<OfferErrors>({});
  const [acceptReason, setAcceptReason] = useState('');
  const [declineReason, setDeclineReason] = useState('');
  const [declineError, setDeclineError] = useState<FieldMsg | null>(null);
  const open = data.bet.status === OUTCOME.ON_HOLD && (data.bet.super_bet_status ?? SUPER_BET.PENDING) === SUPER_BET.PENDING;
  const busy = decision.pending !== null;
  const requested = Number(data.bet.amount);

  const sendOffer = (e: FormEvent) => {
    e.preventDefault();
    const errors = validateOffer(offer, requested);
    setOfferErrors(errors);
    if (!hasErrors(errors)) dispatch(bo.offerRequested({ betId, ...offerBody(offer) }));
  };
  const accept = (e: FormEvent) => {
    e.preventDefault();
    dispatch(bo.acceptRequested({ betId, ...(acceptReason.trim() ? { reason: acceptReason.trim() } : {}) }));
  };
  const decline = (e: FormEvent) => {
    e.preventDefault();
    const error = validateDecline(declineReason);
    setDeclineError(error);
    if (!error) dispatch(bo.declineRequested({ betId, reason: declineReason.trim() }));
  };

  return (
    <Panel title={t('bo.decide.title')} testId="bo-decisions">
      {decision.done && <p className="bo-alert bo-alert--ok" role="status" data-testid="bo-decision-done">{t(`bo.done.${decision.done}`)}</p>}
      <ErrorBox error={decision.error} testId="bo-decision-error" />
      {!open && <p className="bo-muted" data-testid="bo-not-open">{t('bo.decide.closed')}</p>}
      <fieldset className="bo-form" disabled={!open || busy}>
        <form onSubmit={sendOffer} noValidate data-testid="bo-offer-form">
          <h3 className="bo-form__title">{t('bo.offer.title')}</h3>
          <div className="bo-form__row">
            <label className="bo-field">
              <span>{t('bo.offer.amount', money(requested))}</span>
              <input inputMode="decimal" value={offer.amount} data-testid="bo-offer-amount"
                onChange={(e) => setOffer({ ...offer, amount: sanitizeAmount(e.target.value) })} />
              <FieldError msg={offerErrors.amount} testId="bo-offer-amount-error" />
            </label>
            <label className="bo-field">
              <span>{t('bo.offer.price')}</span>
              <input inputMode="decimal" value={offer.price} data-testid="bo-offer-price"
                onChange={(e) => setOffer({ ...offer, price: sanitizeAmount(e.target.value) })} />
              <FieldError msg={offerErrors.price} testId="bo-offer-price-error" />
            </label>
          </div>
          <label className="bo-field">
            <span>{t('bo.reason')}</span>
            <textarea rows={2} value={offer.reason} data-testid="bo-offer-reason" onChange={(e) => setOffer({ ...offer, reason: e.target.value })} />
            <FieldError msg={offerErrors.reason} testId="bo-offer-reason-error" />
          </label>
          <FieldError msg={offerErrors.form} testId="bo-offer-form-error" />
          <button type="submit" className="bo-btn bo-btn--primary" data-testid="bo-offer-submit">
            {decision.pending === 'offer' ? t('common.please_wait') : t('bo.offer.submit')}
          </button>
        </form>
        <div className="bo-form__split">
          <form onSubmit={accept} noValidate data-testid="bo-accept-form">
            <h3 className="bo-form__title">{t('bo.accept.title')}</h3>
            <label className="bo-field">
              <span>{t('bo.reason_optional')}</span>
              <input value={acceptReason} data-testid="bo-accept-reason" onChange={(e) => setAcceptReason(e.target.value)} />
            </label>
            <button type="submit" className="bo-btn bo-btn--ok" data-testid="bo-accept-submit">
              {decision.pending === 'accept' ? t('common.please_wait') : t('bo.accept.submit')}
            </button>
          </form>
          <form onSubmit={decline} noValidate data-testid="bo-decline-form">
            <h3 className="bo-form__title">{t('bo.decline.title')}</h3>
            <label className="bo-field">
              <span>{t('bo.reason')}</span>
              <input value={declineReason} data-testid="bo-decline-reason" onChange={(e) => setDeclineReason(e.target.value)} />
              <FieldError msg={declineError} testId="bo-decline-reason-error" />
            </label>
            <button type="submit" className="bo-btn bo-btn--danger" data-testid="bo-decline-submit">
              {decision.pending === 'decline' ? t('common.please_wait') : t('bo.decline.submit')}
            </button>
          </form>
        </div>
      </fieldset>
    </Panel>
  );
}
