import { describe, expect, it } from 'vitest';
import { amountRule, compareAmounts, isAmount, toCents } from './money';

describe('payment amounts', () => {
  it('are exact decimals with at most two places', () => {
    expect(toCents('0.1')).toBe(10n);
    expect(toCents('12.34')).toBe(1234n);
    expect(isAmount('0.1')).toBe(true);
    expect(isAmount('1.234')).toBe(false);
    expect(isAmount('1e3')).toBe(false);
    expect(isAmount('0')).toBe(false);
    // 0.1 + 0.2 in floating point is not 0.3; in cents it is
    expect(toCents('0.1') + toCents('0.2')).toBe(toCents('0.3'));
    expect(compareAmounts('100.00', '100')).toBe(0);
    expect(compareAmounts('99.99', '100')).toBe(-1);
  });

  it('say Min and Max with the limit (spec 000 section 5)', () => {
    expect(amountRule('10', '50.00', '50000.00', 'deposit')).toEqual({ key: 'validation.min_deposit', args: ['50.00'] });
    expect(amountRule('60000', '50.00', '50000.00', 'withdraw')).toEqual({ key: 'validation.max_withdraw', args: ['50000.00'] });
    expect(amountRule('', '1', '2', 'amount')).toEqual({ key: 'validation.required', args: [] });
    expect(amountRule('100', '50.00', '50000.00', 'deposit')).toBeNull();
  });
});
