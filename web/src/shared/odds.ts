/**
 * Odds formats (spec 000 section 1), mirroring domain/src/odds.rs digit for digit:
 * every conversion is exact (BigInt rationals, never floating point) and rounds
 * half away from zero, so the client passes domain/testdata/odds_vectors.json too.
 *
 * - decimal: d at 2 places; american: d > 2 "+100(d-1)", otherwise "-100/(d-1)";
 * - hongkong: d-1; malay: d-1 when d <= 2, else -1/(d-1); indo: d-1 when d >= 2, else -1/(d-1);
 * - fractional: the simplest exact fraction of d-1, or the nearest ladder step (ties to the
 *   shorter odds). A price at or below 1.00 shows '-' in every format but decimal.
 */

export const ODDS_FORMATS = ['decimal', 'fractional', 'american', 'hongkong', 'malay', 'indo'] as const;
export type OddsFormat = (typeof ODDS_FORMATS)[number];

export const isOddsFormat = (value: unknown): value is OddsFormat =>
  typeof value === 'string' && (ODDS_FORMATS as readonly string[]).includes(value.toLowerCase());

/** An exact rational n/d with d > 0. */
interface Ratio {
  n: bigint;
  d: bigint;
}

const abs = (x: bigint) => (x < 0n ? -x : x);
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a === 0n ? 1n : abs(a)) : gcd(b, a % b));

/** Reads "1.855", "-0.75", "2" or a number. */
export function parseDecimal(value: string | number): Ratio | null {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[2] === '' && !m[3])) return null;
  const frac = m[3] ?? '';
  const n = BigInt((m[2] || '0') + frac) * (m[1] === '-' ? -1n : 1n);
  return { n, d: 10n ** BigInt(frac.length) };
}

const sub = (a: Ratio, b: Ratio): Ratio => ({ n: a.n * b.d - b.n * a.d, d: a.d * b.d });
const cmp = (a: Ratio, b: Ratio) => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};
/** -1 / x for x > 0. */
const negReciprocal = (x: Ratio): Ratio => ({ n: -x.d, d: x.n });
const ONE: Ratio = { n: 1n, d: 1n };
const TWO: Ratio = { n: 2n, d: 1n };

/** |x| * 10^places rounded half away from zero, as a non-negative integer. */
function roundedUnits(x: Ratio, places: number): bigint {
  const scaled = abs(x.n) * 10n ** BigInt(places);
  const q = scaled / x.d;
  return 2n * (scaled % x.d) >= x.d ? q + 1n : q;
}

/** Always two places; a negative value rounding to zero keeps its sign. */
function twoPlaces(x: Ratio): string {
  const units = roundedUnits(x, 2);
  const negative = x.n < 0n;
  const whole = units / 100n;
  const cents = String(units % 100n).padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${cents}`;
}

const whole = (x: Ratio) => String(roundedUnits(x, 0));

/** The standard UK ladder of domain/src/odds/ladder.rs, 100/1 down to 1/100 (101 steps). */
// prettier-ignore
export const STANDARD_LADDER: ReadonlyArray<readonly [number, number]> = [
  [100, 1], [90, 1], [80, 1], [75, 1], [66, 1], [50, 1], [45, 1], [40, 1], [33, 1], [30, 1],
  [28, 1], [25, 1], [22, 1], [20, 1], [18, 1], [16, 1], [15, 1], [14, 1], [13, 1], [12, 1],
  [11, 1], [10, 1], [9, 1], [17, 2], [8, 1], [15, 2], [7, 1], [13, 2], [6, 1], [11, 2],
  [5, 1], [9, 2], [4, 1], [7, 2], [10, 3], [3, 1], [14, 5], [11, 4], [13, 5], [5, 2],
  [12, 5], [9, 4], [11, 5], [2, 1], [19, 10], [15, 8], [9, 5], [7, 4], [17, 10], [13, 8],
  [8, 5], [6, 4], [7, 5], [11, 8], [5, 4], [6, 5], [11, 10], [21, 20], [1, 1], [20, 21],
  [10, 11], [5, 6], [4, 5], [8, 11], [5, 7], [7, 10], [4, 6], [8, 13], [3, 5], [4, 7],
  [8, 15], [1, 2], [40, 85], [4, 9], [2, 5], [4, 11], [1, 3], [3, 10], [2, 7], [1, 4],
  [2, 9], [1, 5], [2, 11], [1, 6], [2, 13], [1, 7], [2, 15], [1, 8], [1, 9], [1, 10],
  [1, 11], [1, 12], [1, 14], [1, 16], [1, 20], [1, 25], [1, 33], [1, 50], [1, 66], [1, 80],
  [1, 100],
];

/** The step nearest to x (ties to the later, shorter step), compared exactly by cross-multiplying. */
export function nearestStep(ladder: ReadonlyArray<readonly [number, number]>, x: Ratio): readonly [number, number] {
  const off = ([n, d]: readonly [number, number]) => abs(BigInt(n) * x.d - x.n * BigInt(d));
  let best = ladder[0]!;
  for (const step of ladder.slice(1)) {
    if (off(step) * BigInt(best[1]) <= off(best) * BigInt(step[1])) best = step;
  }
  return best;
}

function fractional(profit: Ratio, ladder: ReadonlyArray<readonly [number, number]> | null): string {
  if (ladder && ladder.length > 0) {
    const [n, d] = nearestStep(ladder, profit);
    return `${n}/${d}`;
  }
  const g = gcd(profit.n, profit.d);
  return `${profit.n / g}/${profit.d / g}`;
}

/**
 * The price as a member sees it. `ladder` only matters for fractional: null means
 * exact fractions. An unreadable price shows as '-'.
 */
export function formatOdds(
  price: string | number,
  format: OddsFormat,
  ladder: ReadonlyArray<readonly [number, number]> | null = null,
): string {
  const d = parseDecimal(price);
  if (!d) return '-';
  if (format === 'decimal') return twoPlaces(d);
  if (cmp(d, ONE) <= 0) return '-';
  const profit = sub(d, ONE);
  switch (format) {
    case 'fractional':
      return fractional(profit, ladder);
    case 'american':
      return cmp(d, TWO) > 0
        ? `+${whole({ n: profit.n * 100n, d: profit.d })}`
        : `-${whole({ n: profit.d * 100n, d: profit.n })}`;
    case 'hongkong':
      return twoPlaces(profit);
    case 'malay':
      return twoPlaces(cmp(d, TWO) <= 0 ? profit : negReciprocal(profit));
    case 'indo':
      return twoPlaces(cmp(d, TWO) >= 0 ? profit : negReciprocal(profit));
  }
}

/**
 * A handicap or total line as shown (domain/src/catalogue/handicap.rs): a quarter line
 * is "a / b" with the half line nearer zero first (0.25 -> "0 / 0.5", -0.75 -> "-0.5 / -1");
 * other lines plainly, without trailing zeros or '+'. Quarters are exact in binary.
 */
export function handicapLines(base: string | number): string {
  const value = Number(base);
  if (!Number.isFinite(value)) return String(base);
  const quarters = value * 4;
  const plain = (x: number) => String(x === 0 ? 0 : x);
  if (!Number.isInteger(quarters) || quarters % 2 === 0) return plain(value);
  const towardZero = value < 0 ? 0.25 : -0.25;
  return `${plain(value + towardZero)} / ${plain(value - towardZero)}`;
}

/** A line with '+' on its positive halves, as a side's handicap reads ('+0.5', '0 / +0.5', '-1 / -1.5'). */
export function signedLine(base: string | number): string {
  return handicapLines(base)
    .split(' / ')
    .map((part) => (Number(part) > 0 ? `+${part}` : part))
    .join(' / ');
}
