/**
 * Betslip arithmetic and rules (spec 000 sections 3, 5 and 9), pure so the slice,
 * the sagas and the views share one reading:
 * - types: 1 single, 2 express, 3 system, 4 chain;
 * - system combinations are binomial counts over the non-banker picks;
 * - each-way doubles the unit stake into the total (win part + place part);
 * - the validation order picks the one message the betslip shows.
 */

export const SINGLE = 1;
export const EXPRESS = 2;
export const SYSTEM = 3;
export const CHAIN = 4;
export type BetType = 1 | 2 | 3 | 4;

/** acceptPriceChanges: 0 ask, 1 accept higher odds, 2 accept any. */
export type AcceptMode = 0 | 1 | 2;

/** Total express odds limit (spec 000 section 9: 1000 in one reading, 10000 in another; 1000 chosen). */
export const MAX_EXPRESS_ODDS = 1000;
/** Currency rounding (USD, THB, CNY). */
export const MONEY_DECIMALS = 2;
/** Virtual keyboard: at most 10 characters, one decimal point (spec 000 section 5). */
export const KEYBOARD_MAX_CHARS = 10;
/** Quick-bet stake bases and multipliers (spec 000 section 9). */
export const QUICK_BET_BASES = [1, 2, 5, 10];
export const QUICK_BET_MULTIPLIERS = [1, 10, 100];
/**
 * Quick amount buttons per currency. USD and CNY are the spec's lists (section 9);
 * THB is not given there, so it follows the CNY steps scaled to THB's purchasing power.
 */
export const QUICK_AMOUNTS: Record<string, number[]> = {
  USD: [20, 50, 100, 200, 500, 1000],
  CNY: [100, 300, 500, 1000, 3000, 5000],
  THB: [100, 200, 500, 1000, 2000, 5000],
};
export const quickAmounts = (currency: string | null | undefined) => QUICK_AMOUNTS[currency ?? ''] ?? QUICK_AMOUNTS.CNY!;

/** The ten distinct quick-bet stakes: 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000. */
export const QUICK_BET_STAKES = [...new Set(QUICK_BET_MULTIPLIERS.flatMap((m) => QUICK_BET_BASES.map((b) => b * m)))].sort((a, b) => a - b);

/** What the rules need of a betslip event. */
export interface RuleEvent {
  eventId: number;
  gameId: number;
  price: string;
  initialPrice: string;
  base: string | null;
  initialBase: string | null;
  blocked: boolean;
  deleted: boolean;
  banker: boolean;
  ewAllowed: boolean;
  ewCoeff: number | null;
  conflicts: number[];
  /** 'sp': taken at the starting price (known only at the off); absent: the shown price. */
  oddType?: 'odd' | 'sp';
}

/** The price of a pick at the starting price in do_bet, book_bet and their answers (spec 000 sections 3 and 7.4). */
export const SP_PRICE = -1;

/** The pick is taken at the starting price: no price is agreed, none can change. */
export const isSp = (e: { oddType?: 'odd' | 'sp' }) => e.oddType === 'sp';
/** Any pick at SP leaves the slip's odds and possible win unknown. */
export const hasSp = (events: Array<{ oddType?: 'odd' | 'sp' }>) => events.some(isSp);

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

/** Single for one pick, express for more; an explicit system or chain stays while it can. */
export function autoType(current: BetType, count: number): BetType {
  if (count <= 1) return SINGLE;
  if (current === SYSTEM && count >= 3) return SYSTEM;
  if (current === CHAIN) return CHAIN;
  return EXPRESS;
}

/** The least number of picks a type needs. */
export const minEvents = (type: BetType) => (type === SYSTEM ? 3 : type === SINGLE ? 1 : 2);

/**
 * System sizes offered: k non-banker picks per combination, from 2 (1 with bankers,
 * whose picks join every combination) to m - 1, m being the non-banker count.
 */
export function systemOptions(count: number, bankers: number): number[] {
  const m = count - bankers;
  const from = bankers > 0 ? 1 : 2;
  const out: number[] = [];
  for (let k = from; k <= m - 1; k++) out.push(k);
  return out;
}

/** Combinations of a system k of the non-bankers. */
export const systemCombinations = (count: number, bankers: number, k: number) => combinations(count - bankers, k);

/** The system size the server gets: picks per combination, bankers included. */
export const sysBetValue = (k: number, bankers: number) => k + bankers;

/** Bets the stake is split over: system combinations, else 1. */
export function betCount(type: BetType, count: number, bankers: number, k: number): number {
  return type === SYSTEM ? Math.max(1, systemCombinations(count, bankers, k)) : 1;
}

const toNumber = (value: string | null | undefined) => {
  if (value === null || value === undefined || value.trim() === '') return NaN;
  return Number(value);
};

/** Rounds to currency places (half away from zero) and prints without trailing noise. */
export function roundMoney(value: number, decimals = MONEY_DECIMALS): string {
  if (!Number.isFinite(value)) return '';
  const f = 10 ** decimals;
  const r = Math.sign(value) * Math.round(Math.abs(value) * f + 1e-9) / f;
  return r.toFixed(decimals).replace(/\.?0+$/, '') || '0';
}

/** Each-way doubles: total = unit x bets x (2 with each-way). */
export const totalFromUnit = (unit: string, bets: number, eachWay: boolean) => {
  const n = toNumber(unit);
  return Number.isFinite(n) ? roundMoney(n * bets * (eachWay ? 2 : 1)) : '';
};
/** ... and halves back: unit = total / (bets x (2 with each-way)). */
export const unitFromTotal = (total: string, bets: number, eachWay: boolean) => {
  const n = toNumber(total);
  return Number.isFinite(n) ? roundMoney(n / (bets * (eachWay ? 2 : 1)), 4) : '';
};

/** Place odds of an each-way part: 1 + (odds - 1) x ewCoeff (the market's ew_coeff: 0.25 = a quarter of the odds), 3 places like the server's. */
export const placeOdds = (price: number, ewCoeff: number | null) =>
  Math.round((1 + (price - 1) * (ewCoeff && ewCoeff > 0 ? ewCoeff : 1)) * 1000) / 1000;

/**
 * Better-odds price (spec 000 section 9): the margin over 1 raised by 10 percent,
 * rounded up above 10, none below 1.06.
 */
export function betterOdds(price: string | number): number | null {
  const p = Number(price);
  if (!Number.isFinite(p) || p < 1.06) return null;
  const raised = p + (p - 1) * 0.1;
  return raised > 10 ? Math.ceil(raised) : Math.round(raised * 1000) / 1000;
}

/** The product of the prices (3 places, the odds rounding). */
export const totalOdds = (prices: number[]) => Math.round(prices.reduce((a, p) => a * p, 1) * 1000) / 1000;

export interface WinInput {
  type: BetType;
  events: Array<Pick<RuleEvent, 'price' | 'banker' | 'ewCoeff' | 'oddType'>>;
  stake: string;
  eachWay: boolean;
  sysK: number;
  /** A better-odds single uses the offered price. */
  offeredPrice?: number | null;
}

/**
 * Possible win of the slip: single and express stake x odds; system the unit stake
 * over every combination (bankers in each); chain the stake rolled over the picks,
 * stake + stake x sum(odds - 1). Each-way adds the place part at the place odds.
 * null with a pick at SP: its price is known only at the off.
 */
export function possibleWin({ type, events, stake, eachWay, sysK, offeredPrice }: WinInput): number | null {
  if (hasSp(events)) return null;
  const total = toNumber(stake);
  if (!Number.isFinite(total) || total <= 0 || events.length === 0) return 0;
  const prices = events.map((e, i) => (type === SINGLE && i === 0 && offeredPrice ? offeredPrice : Number(e.price)));
  const places = events.map((e, i) => placeOdds(prices[i]!, e.ewCoeff));
  const ways = eachWay ? 2 : 1;
  const product = (xs: number[]) => xs.reduce((a, x) => a * x, 1);
  let win: number;
  if (type === SYSTEM) {
    const bankers = events.map((e, i) => (e.banker ? i : -1)).filter((i) => i >= 0);
    const rest = events.map((_, i) => i).filter((i) => !bankers.includes(i));
    const combos = subsets(rest, sysK);
    if (combos.length === 0) return 0;
    const unit = total / (combos.length * ways);
    win = combos.reduce((sum, c) => {
      const picks = [...bankers, ...c];
      const w = product(picks.map((i) => prices[i]!));
      const p = eachWay ? product(picks.map((i) => places[i]!)) : 0;
      return sum + unit * (w + p);
    }, 0);
  } else if (type === CHAIN) {
    const unit = total / ways;
    win = unit + unit * prices.reduce((a, p) => a + (p - 1), 0);
    if (eachWay) win += unit + unit * places.reduce((a, p) => a + (p - 1), 0);
  } else {
    const unit = total / ways;
    win = unit * product(prices) + (eachWay ? unit * product(places) : 0);
  }
  return Math.round(win * 100) / 100;
}

/** Picks of one game cannot be combined: every pick lists the picks it conflicts with. */
export function conflictsOf(events: Array<Pick<RuleEvent, 'eventId' | 'gameId'>>, type: BetType): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const e of events) {
    const others = type === SINGLE ? [] : events.filter((o) => o.eventId !== e.eventId && o.gameId === e.gameId).map((o) => o.eventId);
    out.set(e.eventId, others);
  }
  return out;
}

/** Virtual keyboard keys: digits, '.', 'del' (backspace), 'clear'. */
export type KeyboardKey = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '.' | 'del' | 'clear';

/**
 * One key press on the stake: at most 10 characters and one decimal point, no more
 * fraction digits than the currency has, no leading zeros ('0' then '5' is '5').
 */
export function applyKey(current: string, key: KeyboardKey, decimals = MONEY_DECIMALS): string {
  if (key === 'clear') return '';
  if (key === 'del') return current.slice(0, -1);
  if (current.length >= KEYBOARD_MAX_CHARS) return current;
  if (key === '.') {
    if (current.includes('.') || decimals === 0) return current;
    return current === '' ? '0.' : current + '.';
  }
  const dot = current.indexOf('.');
  if (dot >= 0 && current.length - dot - 1 >= decimals) return current;
  if (current === '0') return key;
  return current + key;
}

/** Typed stake text: only digits and one point survive, trimmed to the keyboard's rules. */
export function sanitizeStake(text: string, decimals = MONEY_DECIMALS): string {
  let out = '';
  for (const ch of text) {
    if (/[0-9.]/.test(ch)) out = applyKey(out, ch as KeyboardKey, decimals);
  }
  return out;
}

export type StakeCheck = { ok: true; stake: string } | { ok: false; key: string | null };

/**
 * Quick-bet stake save (spec 000 section 5): rounded to the currency; empty or zero is
 * not saved; a member above the balance sees the top-up message and nothing is saved.
 */
export function checkQuickStake(value: string, loggedIn: boolean, balance: number | null): StakeCheck {
  const n = toNumber(value);
  if (!Number.isFinite(n) || n <= 0) return { ok: false, key: null };
  const stake = roundMoney(n);
  if (Number(stake) <= 0) return { ok: false, key: null };
  if (loggedIn && balance !== null && Number(stake) > balance) return { ok: false, key: 'betslip.quick_balance_low' };
  return { ok: true, stake };
}

/** The accept mode lets this move through without asking. */
export const autoAccepts = (mode: AcceptMode, from: string, to: string) =>
  mode === 2 || (mode === 1 && Number(to) > Number(from));

/** The live price left the agreed one; never for a pick at SP (it takes whatever the starting price is). */
export const priceChanged = (e: Pick<RuleEvent, 'price' | 'initialPrice' | 'oddType'>) =>
  !isSp(e) && Number(e.price) !== Number(e.initialPrice);
export const baseChanged = (e: Pick<RuleEvent, 'base' | 'initialBase'>) => (e.base ?? '') !== (e.initialBase ?? '');

export interface RuleInput {
  type: BetType;
  events: RuleEvent[];
  stake: string;
  loggedIn: boolean;
  /** Known balance (plus bonus balances) of a member; null when unknown. */
  balance: number | null;
  freeBet: boolean;
}

/** Language-file keys of the betslip messages (spec 000 section 5). */
export const MSG = {
  empty: 'betslip.msg.empty',
  notAvailable: 'betslip.msg.not_available',
  priceChanged: 'betslip.msg.price_changed',
  baseChanged: 'betslip.msg.base_changed',
  conflict: 'betslip.msg.conflict',
  setStake: 'betslip.msg.set_stake',
  insufficient: 'bet.insufficient_balance',
  oddsLimit: 'betslip.msg.odds_limit',
  login: 'betslip.msg.login',
  addMore: 'betslip.msg.add_more',
} as const;
export type RuleMessage = (typeof MSG)[keyof typeof MSG];

/** The first reason the slip cannot be placed, or null when it can. */
export function blockingMessage({ type, events, stake, loggedIn, balance, freeBet }: RuleInput): RuleMessage | null {
  if (events.length === 0) return MSG.empty;
  if (events.length < minEvents(type)) return MSG.addMore;
  if (events.some((e) => e.deleted || e.blocked)) return MSG.notAvailable;
  if (events.some((e) => e.conflicts.length > 0)) return MSG.conflict;
  if (events.some(priceChanged)) return MSG.priceChanged;
  if (events.some(baseChanged)) return MSG.baseChanged;
  // SP picks are left out: the known prices alone already over the limit are over it whatever the starting prices
  if ((type === EXPRESS || type === CHAIN) && totalOdds(events.filter((e) => !isSp(e)).map((e) => Number(e.price))) > MAX_EXPRESS_ODDS) {
    return MSG.oddsLimit;
  }
  if (!loggedIn) return MSG.login;
  const amount = toNumber(stake);
  if (!freeBet && (!Number.isFinite(amount) || amount <= 0)) return MSG.setStake;
  if (!freeBet && balance !== null && amount > balance) return MSG.insufficient;
  return null;
}
