/** Validation of the support decisions (docs/cashout-and-backoffice.md): messages are language-file keys. */
import { formatMoney } from '../../shared/money';
import { parseAmount } from '../cashout/calc';

export interface FieldMsg {
  key: string;
  args?: Array<string | number>;
}

export interface OfferInput {
  amount: string;
  price: string;
  reason: string;
}

export type OfferErrors = Partial<Record<'amount' | 'price' | 'reason' | 'form', FieldMsg>>;

/** At least one of stake and odds; stake above 0 and at most the requested one; odds above 1; a reason. */
export function validateOffer(input: OfferInput, requestedStake: number): OfferErrors {
  const errors: OfferErrors = {};
  const amount = input.amount.trim();
  const price = input.price.trim();
  if (!amount && !price) errors.form = { key: 'bo.v.amount_or_price' };
  if (amount) {
    const a = parseAmount(amount);
    if (!Number.isFinite(a) || a <= 0) errors.amount = { key: 'bo.v.amount_positive' };
    else if (a > requestedStake) errors.amount = { key: 'bo.v.amount_max', args: [formatMoney(requestedStake.toFixed(2))] };
  }
  if (price) {
    const p = parseAmount(price);
    if (!Number.isFinite(p) || p <= 1) errors.price = { key: 'bo.v.price_min' };
  }
  if (!input.reason.trim()) errors.reason = { key: 'bo.v.reason' };
  return errors;
}

/** A decline needs a reason. */
export const validateDecline = (reason: string): FieldMsg | null => (reason.trim() ? null : { key: 'bo.v.reason' });

export const hasErrors = (errors: object) => Object.keys(errors).length > 0;

/** The offer as the API takes it: only the fields given. */
export function offerBody(input: OfferInput): { amount?: number; price?: number; reason: string } {
  const body: { amount?: number; price?: number; reason: string } = { reason: input.reason.trim() };
  if (input.amount.trim()) body.amount = parseAmount(input.amount);
  if (input.price.trim()) body.price = parseAmount(input.price);
  return body;
}
