/**
 * The betslip arithmetic, in one place, in exact decimals (big.js; never floating
 * point): the twin of domain/src/bet/arith.rs with its settle.rs, both held to
 * domain/testdata/betslip_vectors.json (docs/protocol.md "Betslip arithmetic").
 *
 * - `amount` (the slip's total) is what the member is charged; a bet is a set of
 *   lines (a system's combinations; each-way doubles them into a win and a place
 *   part); each line is staked with amount / lines rounded down to the currency,
 *   and the bet charges that times the lines.
 * - Possible win: every line settled as won, each line's return rounded to the
 *   currency (half away from zero); chains roll each return into the next leg up
 *   to the line stake, the rest banked.
 * - Better odds: price + (price - 1) / 10 rounded up (2 places above 10, else 3),
 *   none below 1.06.
 * - The odds limit holds every express line: an express and each system
 *   combination; not singles, not chains; SP legs are left out.
 */
import Big from 'big.js';

export const MONEY_PLACES = 2;
export const ODDS_PLACES = 3;
/** Total express odds limit (spec 000 section 9: 1000 in one reading, 10000 in another; 1000 chosen, as the server). */
export const ODDS_LIMIT = '1000';

const ROUND_DOWN = 0;
const ROUND_HALF_UP = 1;
const ROUND_UP = 3;

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A decimal from the wire or an input ("1.50", 2.5); null for anything else. */
export function dec(value: string | number | null | undefined): Big | null {
  if (value === null || value === undefined) return null;
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  if (!DECIMAL.test(text)) return null;
  try {
    return new Big(text);
  } catch {
    return null;
  }
}

/** Rounded to the currency, half away from zero, with its places ("133.58", "10.00"). */
export const money = (x: Big) => x.round(MONEY_PLACES, ROUND_HALF_UP).toFixed(MONEY_PLACES);
/** Rounded down to the currency ("1.66"). */
export const moneyDown = (x: Big) => x.round(MONEY_PLACES, ROUND_DOWN).toFixed(MONEY_PLACES);
/** Rounded up to the currency. */
export const moneyUp = (x: Big) => x.round(MONEY_PLACES, ROUND_UP).toFixed(MONEY_PLACES);
/** Odds at 3 places, without trailing zeros ("10.23", "5"). */
export const odds3 = (x: Big) => x.round(ODDS_PLACES, ROUND_HALF_UP).toString();

/** The better-odds price of `price`, or null where none is offered (below 1.06, or not a price). */
export function betterOdds(price: string | number): string | null {
  const p = dec(price);
  if (!p || p.lt('1.06')) return null;
  const raised = p.plus(p.minus(1).div(10));
  return raised.round(raised.gt(10) ? 2 : 3, ROUND_UP).toString();
}

/** Each-way place odds: 1 + (price - 1) x coefficient, at 3 places. */
export function placeOdds(price: Big, ewCoeff: string | number | null): Big {
  const c = dec(ewCoeff);
  const coeff = c && c.gt(0) ? c : new Big(1);
  return new Big(1).plus(price.minus(1).times(coeff)).round(ODDS_PLACES, ROUND_HALF_UP);
}

/** n choose k (0 outside 0..n). */
export function combinations(n: number, k: number): number {
  if (k < 0 || k > n || n < 0) return 0;
  let r = 1;
  for (let i = 1; i <= Math.min(k, n - k); i++) r = (r * (n - i + 1)) / i;
  return Math.round(r);
}

/** Every k-subset of `items`, in order. */
export function subsets<T>(items: T[], k: number): T[][] {
  if (k === 0) return [[]];
  if (k > items.length) return [];
  const [first, ...rest] = items;
  return [...subsets(rest, k - 1).map((s) => [first as T, ...s]), ...subsets(rest, k)];
}

/** The lines of a bet of `combos` combinations: twice with each-way. */
export const lineCount = (combos: number, eachWay: boolean) => combos * (eachWay ? 2 : 1);

/** Each line's stake: the total over the lines, rounded down to the currency ('' when the total is not a number). */
export function lineStake(total: string, lines: number): string {
  const t = dec(total);
  if (!t || lines <= 0) return '';
  return moneyDown(t.div(lines));
}

/** A line stake times the lines (the total a typed unit stake makes). */
export function timesLines(unit: string, lines: number): string {
  const u = dec(unit);
  return u && lines > 0 ? money(u.times(lines)) : '';
}

export type SlipType = 1 | 2 | 3 | 4;

export interface SlipLeg {
  /** The live price (decimal string); ignored for an SP leg. */
  price: string;
  banker?: boolean;
  ewCoeff?: string | number | null;
  sp?: boolean;
}

export interface SlipInput {
  type: SlipType;
  /** The total typed (or the free bet's amount). */
  amount: string;
  eachWay: boolean;
  /** System size counted in non-banker picks (the server's sys_bet less the bankers). */
  sysK: number;
  legs: SlipLeg[];
  /** A better-odds single: the first leg at its offered price. */
  offer?: boolean;
}

export interface SlipFigures {
  lines: number;
  /** Stake per line ('' without a valid amount). */
  unitStake: string;
  /** What the bet charges: line stake x lines. */
  stake: string;
  /** Single and express only, at 3 places; null for system, chain or any SP leg. */
  odds: string | null;
  /** null with any SP leg; '0.00' without a stake. */
  possibleWin: string | null;
  oddsLimitExceeded: boolean;
  /** The better-odds price taken (a single with `offer`), else null. */
  offered: string | null;
}

/** The index combinations of the bet: bankers in every system combination. */
export function combosOf(type: SlipType, legs: SlipLeg[], sysK: number): number[][] {
  const all = legs.map((_, i) => i);
  if (type !== 3) return legs.length > 0 ? [all] : [];
  const bankers = all.filter((i) => legs[i]!.banker);
  const rest = all.filter((i) => !legs[i]!.banker);
  return subsets(rest, sysK).map((c) => [...bankers, ...c].sort((a, b) => a - b));
}

const product = (xs: Big[]) => xs.reduce((a, x) => a.times(x), new Big(1));

/** Some express line's known prices multiply past the limit. */
export function oddsLimitExceeded(type: SlipType, prices: Array<Big | null>, combos: number[][], limit = ODDS_LIMIT): boolean {
  if (type !== 2 && type !== 3) return false;
  return combos.some((c) => product(c.map((i) => prices[i]).filter((p): p is Big => p !== null)).gt(limit));
}

/** A chain line: each leg's return funds the next leg up to the line stake, the rest is banked. */
function chainReturn(unit: Big, prices: Big[]): Big {
  let riding = unit;
  let banked = new Big(0);
  for (const p of prices) {
    const back = new Big(money(riding.times(p)));
    if (back.eq(0)) return banked;
    riding = back.gt(unit) ? unit : back;
    banked = banked.plus(back.minus(riding));
  }
  return banked.plus(riding);
}

/** Everything the slip shows and the bet records, from one reading. */
export function slipFigures({ type, amount, eachWay, sysK, legs, offer = false }: SlipInput): SlipFigures {
  const sp = legs.some((l) => l.sp);
  const offered = type === 1 && offer && legs[0] && !legs[0].sp ? betterOdds(legs[0].price) : null;
  const prices = legs.map((l, i) => (l.sp ? null : i === 0 && offered ? new Big(offered) : dec(l.price)));
  const combos = combosOf(type, legs, sysK);
  const lines = lineCount(combos.length, eachWay);
  const unitStake = lineStake(amount, lines);
  const stake = unitStake === '' ? '' : timesLines(unitStake, lines);
  const limitHit = oddsLimitExceeded(type, prices, combos);
  const known = prices.every((p): p is Big => p !== null);
  const odds = (type === 1 || type === 2) && !sp && known && legs.length > 0 ? odds3(product(prices as Big[])) : null;
  if (sp || !known) return { lines, unitStake, stake, odds, possibleWin: null, oddsLimitExceeded: limitHit, offered };
  const unit = dec(unitStake);
  if (!unit || unit.lte(0) || combos.length === 0) {
    return { lines, unitStake, stake, odds, possibleWin: money(new Big(0)), oddsLimitExceeded: limitHit, offered };
  }
  const parts: Big[][] = [prices as Big[]];
  if (eachWay) parts.push((prices as Big[]).map((p, i) => placeOdds(p, legs[i]!.ewCoeff ?? null)));
  let win = new Big(0);
  for (const ps of parts) {
    for (const c of combos) {
      const picked = c.map((i) => ps[i]!);
      win = win.plus(type === 4 ? chainReturn(unit, picked) : new Big(money(unit.times(product(picked)))));
    }
  }
  return { lines, unitStake, stake, odds, possibleWin: money(win), oddsLimitExceeded: limitHit, offered };
}

/** a > b for two decimal strings (false when either is not a number). */
export function greater(a: string | number | null | undefined, b: string | number | null | undefined): boolean {
  const x = dec(a);
  const y = dec(b);
  return x !== null && y !== null && x.gt(y);
}

/** a == b as decimals ("1.50" equals "1.5"). */
export function sameDecimal(a: string | number | null | undefined, b: string | number | null | undefined): boolean {
  const x = dec(a);
  const y = dec(b);
  return x !== null && y !== null ? x.eq(y) : a === b;
}
