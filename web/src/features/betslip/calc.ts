/**
 * Betslip arithmetic and rules (spec 000 sections 3, 5 and 9), pure so the slice,
 * the sagas and the views share one reading:
 * - types: 1 single, 2 express, 3 system, 4 chain;
 * - system combinations are binomial counts over the non-banker picks;
 * - each-way doubles the unit stake into the total (win part + place part);
 * - the validation order picks the one message the betslip shows.
 * The arithmetic itself (stakes, odds, possible win, better odds, the odds limit)
 * lives in ./arith.ts, in exact decimals, held to the vectors the server passes too.
 */
import { combinations, combosOf, dec, greater, lineCount, lineStake, money, oddsLimitExceeded, sameDecimal, slipFigures, timesLines } from './arith';

export { betterOdds, combinations, subsets } from './arith';

export const SINGLE = 1;
export const EXPRESS = 2;
export const SYSTEM = 3;
export const CHAIN = 4;
export type BetType = 1 | 2 | 3 | 4;

/** acceptPriceChanges: 0 ask, 1 accept higher odds, 2 accept any. */
export type AcceptMode = 0 | 1 | 2;

/** Total express odds limit (spec 000 section 9: 1000 in one reading, 10000 in another; 1000 chosen; see ./arith.ts). */
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
  ewCoeff: number | string | null;
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

/** Trailing zeros off a decimal string ("10.00" -> "10", "1.50" -> "1.5"): a stake as typed. */
const trimZeros = (text: string) => (text.includes('.') ? text.replace(/\.?0+$/, '') : text) || '0';

/** Rounds to currency places (half away from zero), exactly, and prints without trailing zeros ('' for no number). */
export function roundMoney(value: string | number): string {
  const d = dec(value);
  return d ? trimZeros(money(d)) : '';
}

/** Each-way doubles: total = unit x bets x (2 with each-way). */
export const totalFromUnit = (unit: string, bets: number, eachWay: boolean) => {
  const total = timesLines(unit, lineCount(bets, eachWay));
  return total === '' ? '' : trimZeros(total);
};
/** ... and halves back: unit = total / (bets x (2 with each-way)), rounded down to the currency as the server does. */
export const unitFromTotal = (total: string, bets: number, eachWay: boolean) => {
  const unit = lineStake(total, lineCount(bets, eachWay));
  return unit === '' ? '' : trimZeros(unit);
};

export interface WinInput {
  type: BetType;
  events: Array<Pick<RuleEvent, 'price' | 'banker' | 'ewCoeff' | 'oddType'>>;
  stake: string;
  eachWay: boolean;
  sysK: number;
  /** A better-odds single uses the offered price. */
  offered?: boolean;
}

/** The slip's figures (./arith.ts): lines, line stake, charged stake, odds, possible win, odds limit. */
export const figuresOf = ({ type, events, stake, eachWay, sysK, offered }: WinInput) =>
  slipFigures({
    type, amount: stake, eachWay, sysK, offer: offered,
    legs: events.map((e) => ({ price: e.price, banker: e.banker, ewCoeff: e.ewCoeff, sp: isSp(e) })),
  });

/** Possible win of the slip, a money string; null with a pick at SP (its price is known only at the off). */
export const possibleWin = (input: WinInput): string | null => figuresOf(input).possibleWin;

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
export function checkQuickStake(value: string, loggedIn: boolean, balance: string | number | null): StakeCheck {
  const stake = roundMoney(value);
  if (stake === '' || !greater(stake, 0)) return { ok: false, key: null };
  if (loggedIn && balance !== null && greater(stake, balance)) return { ok: false, key: 'betslip.quick_balance_low' };
  return { ok: true, stake };
}

/** The accept mode lets this move through without asking. */
export const autoAccepts = (mode: AcceptMode, from: string, to: string) =>
  mode === 2 || (mode === 1 && greater(to, from));

/** The live price left the agreed one; never for a pick at SP (it takes whatever the starting price is). */
export const priceChanged = (e: Pick<RuleEvent, 'price' | 'initialPrice' | 'oddType'>) =>
  !isSp(e) && !sameDecimal(e.price, e.initialPrice);
export const baseChanged = (e: Pick<RuleEvent, 'base' | 'initialBase'>) => (e.base ?? '') !== (e.initialBase ?? '');

export interface RuleInput {
  type: BetType;
  events: RuleEvent[];
  stake: string;
  loggedIn: boolean;
  /** Known balance (plus bonus balances) of a member; null when unknown. */
  balance: string | number | null;
  freeBet: boolean;
  /** System size in non-banker picks (each combination is held to the odds limit). */
  sysK?: number;
  eachWay?: boolean;
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
export function blockingMessage({ type, events, stake, loggedIn, balance, freeBet, sysK = 2, eachWay = false }: RuleInput): RuleMessage | null {
  if (events.length === 0) return MSG.empty;
  if (events.length < minEvents(type)) return MSG.addMore;
  if (events.some((e) => e.deleted || e.blocked)) return MSG.notAvailable;
  if (events.some((e) => e.conflicts.length > 0)) return MSG.conflict;
  if (events.some(priceChanged)) return MSG.priceChanged;
  if (events.some(baseChanged)) return MSG.baseChanged;
  // every express line (an express, each system combination; not chains): SP picks are left out, the known
  // prices alone already over the limit are over it whatever the starting prices
  const combos = combosOf(type, events.map((e) => ({ price: e.price, banker: e.banker })), sysK);
  if (oddsLimitExceeded(type, events.map((e) => (isSp(e) ? null : dec(e.price))), combos, String(MAX_EXPRESS_ODDS))) {
    return MSG.oddsLimit;
  }
  if (!loggedIn) return MSG.login;
  if (freeBet) return null;
  const charged = figuresOf({ type, events, stake, eachWay, sysK }).stake;
  if (charged === '' || !greater(charged, 0)) return MSG.setStake;
  if (balance !== null && greater(charged, balance)) return MSG.insufficient;
  return null;
}
