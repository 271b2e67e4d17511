/**
 * Money arrives from the server as decimal strings ("10000.00"). It is shown through
 * big.js (exact decimals, the library of the betslip arithmetic), never through a
 * float: 0.1 + 0.2 must not leak into a balance.
 */
import Big from 'big.js';

const DECIMAL = /^[+-]?\d+(?:\.\d*)?$/;
const ROUND_HALF_UP = 1; // Big.roundHalfUp: half away from zero

/** Groups an integer string in threes: "1234567" -> "1,234,567". */
export function groupThousands(intDigits: string, separator = ','): string {
  return intDigits.replace(/\B(?=(\d{3})+(?!\d))/g, separator);
}

/**
 * Formats a decimal string with thousands separators and exactly `decimals`
 * fraction digits (currency rounding, 2 for USD/THB/CNY), rounding half away from
 * zero when the input has more digits. Input that is not a plain decimal is
 * returned unchanged rather than guessed at.
 */
export function formatMoney(value: string, decimals = 2): string {
  const text = value.trim();
  if (!DECIMAL.test(text)) return value;
  const fixed = new Big(text).toFixed(decimals, ROUND_HALF_UP);
  const negative = fixed.startsWith('-') && /[1-9]/.test(fixed); // a zero that rounding produced has no sign
  const [integer = '0', fraction] = fixed.replace(/^-/, '').split('.');
  return (negative ? '-' : '') + groupThousands(integer) + (fraction ? '.' + fraction : '');
}
