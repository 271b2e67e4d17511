/**
 * Money arrives from the server as decimal strings ("10000.00"). It is shown by
 * rewriting the string, never by parsing it into a float: 0.1 + 0.2 must not leak
 * into a balance.
 */

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

/** Adds one to a string of digits ("0999" -> "1000"), growing it when needed ("99" -> "100"). */
function incrementDigits(digits: string): string {
  const out = digits.split('');
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== '9') {
      out[i] = String(Number(out[i]) + 1);
      return out.join('');
    }
    out[i] = '0';
  }
  return '1' + out.join('');
}

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
  const match = DECIMAL.exec(value.trim());
  if (!match) return value;
  const [, sign = '', rawInt = '0', rawFrac = ''] = match;

  let fraction = rawFrac.padEnd(decimals, '0');
  let integer = rawInt.replace(/^0+(?=\d)/, '');
  if (fraction.length > decimals) {
    const roundUp = Number(fraction[decimals]) >= 5;
    let kept = integer + fraction.slice(0, decimals);
    if (roundUp) kept = incrementDigits(kept);
    const intLen = kept.length - decimals;
    integer = kept.slice(0, intLen) || '0';
    fraction = kept.slice(intLen);
  }

  const isZero = /^0*$/.test(integer + fraction);
  const shownSign = sign === '-' && !isZero ? '-' : '';
  return shownSign + groupThousands(integer) + (decimals > 0 ? '.' + fraction : '');
}
