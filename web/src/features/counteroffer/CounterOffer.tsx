import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { formatOdds } from '../../shared/odds';
import { formatMoney } from '../../shared/money';
import { awaitsAnswer, type BetRecord } from '../history/model';
import { useT } from '../i18n/useT';
import { busy, counterOfferActions, NO_FLAGS } from './counterOfferSlice';

/**
 * An on-hold super bet: 'Waiting for confirmation' until support answers; with a
 * counter offer its terms and Accept / Decline (spec 000 sections 4, 8).
 */
export function CounterOffer({ record }: { record: BetRecord }) {
  const t = useT();
  const dispatch = useAppDispatch();
  const betId = String(record.id);
  const flags = useAppSelector((s) => s.counterOffer.byBet[betId]) ?? NO_FLAGS;
  if (!awaitsAnswer(record)) return null;
  const offer = record.counter_offer;
  if (!offer) return <p className="counter-offer__waiting" data-testid="counter-offer-waiting">{t('error.onhold')}</p>;
  const disabled = busy(flags);
  const answer = (accept: boolean) => dispatch(counterOfferActions.answerRequested({ betId, accept }));
  const hasAmount = offer.amount !== undefined && offer.amount !== null && offer.amount !== '';
  const hasPrice = offer.price !== undefined && offer.price !== null && offer.price !== '';
  return (
    <div className="counter-offer" data-testid="counter-offer">
      <strong>{t('counter.title')}</strong>
      <dl className="counter-offer__terms">
        {hasAmount && (<><dt>{t('counter.amount')}</dt><dd data-testid="counter-offer-amount">{formatMoney(String(offer.amount))} {record.currency ?? ''}</dd></>)}
        {hasPrice && (<><dt>{t('counter.price')}</dt><dd data-testid="counter-offer-price">{formatOdds(offer.price ?? '', 'decimal')}</dd></>)}
        {offer.reason && (<><dt>{t('counter.reason')}</dt><dd data-testid="counter-offer-reason">{offer.reason}</dd></>)}
      </dl>
      {flags.acceptFailed && <p className="field__error" role="alert" data-testid="counter-accept-failed">{t('counter.accept_failed')}</p>}
      {flags.declineFailed && <p className="field__error" role="alert" data-testid="counter-decline-failed">{t('counter.decline_failed')}</p>}
      <div className="counter-offer__buttons">
        <button type="button" className="btn btn--ghost-dark btn--sm" data-testid="counter-decline" disabled={disabled}
          aria-busy={flags.declining} onClick={() => answer(false)}>{flags.declining ? t('common.please_wait') : t('counter.decline')}</button>
        <button type="button" className="btn btn--primary btn--sm" data-testid="counter-accept" disabled={disabled}
          aria-busy={flags.accepting} onClick={() => answer(true)}>{flags.accepting ? t('common.please_wait') : t('counter.accept')}</button>
      </div>
    </div>
  );
}
