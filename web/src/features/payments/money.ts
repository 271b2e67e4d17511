/**
 * Exact decimal amounts as the member types them (never floating point): a
 * positive number with at most two decimals, compared with big.js.
 */
import Big from 'big.js';

const AMOUNT = /^(\d{1,12})(?:\.(\d{1,2}))?$/;

export const isAmount = (text: string) => AMOUNT.test(text.trim()) && toCents(text) > 0n;

/** Cents of an amount string ('12.3' -> 1230n); throws on a non-amount. */
export function toCents(text: string): bigint {
  const match = AMOUNT.exec(text.trim());
  if (!match) throw new Error(`not an amount: ${text}`);
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

/** -1, 0 or 1 as a < b, a == b, a > b. */
export function compareAmounts(a: string, b: string): number {
  toCents(a); // throws on a non-amount, as before
  toCents(b);
  return new Big(a.trim()).cmp(new Big(b.trim()));
}

/** The field rule of spec 000 section 5 for a money amount: its message key and value. */
export function amountRule(
  text: string, min: string | undefined, max: string | undefined, kind: 'deposit' | 'withdraw' | 'amount',
): { key: string; args: string[] } | null {
  if (!text.trim()) return { key: 'validation.required', args: [] };
  if (!isAmount(text)) return { key: 'validation.value_invalid', args: [text] };
  if (min && isAmount(min) && compareAmounts(text, min) < 0) return { key: `validation.min_${kind}`, args: [min] };
  if (max && isAmount(max) && compareAmounts(text, max) > 0) return { key: `validation.max_${kind}`, args: [max] };
  return null;
}
