/**
 * The betting statistics of /betdata (`report/betanalytics`, docs/protocol.md "Betting
 * statistics"): the answer's shape and the pure rules the page draws with, tested in
 * betdata.test.ts.
 */
import Big from 'big.js';
import { presetRange, type RangePreset } from './model';

export interface Totals { count: number; stake: string; settled_stake: string; payout: string; profit: string }

export interface BetStats {
  currency: string;
  from_date: number;
  to_date: number;
  /** More bets than the server folds fell in the period (the newest were counted). */
  partial: boolean;
  total: Totals;
  open: number;
  won: number;
  lost: number;
  returned: number;
  cashed_out: number;
  declined: number;
  win_rate: string | null;
  average_odds: string | null;
  biggest_win: string;
  by_type: Array<Totals & { type: number }>;
  by_sport: Array<Totals & { sport: string }>;
}

export const BETDATA_PATH = 'report/betanalytics';
/** The periods the page offers (spec 000 section 9 date presets). */
export const STATS_PRESETS: RangePreset[] = ['today', 'yesterday', 'week', 'month'];

/** The call's period: the preset's days in the language's zone, `to_date` inclusive (the server's). */
export function statsParams(preset: RangePreset, now = new Date(), lang?: string | null) {
  const { from, to } = presetRange(preset, now, lang);
  return { from_date: from, to_date: to - 1 };
}

/** The outcome bar: each kind's share of the bets that were not declined, in whole percent. */
export const OUTCOMES = ['won', 'lost', 'returned', 'cashed_out', 'open'] as const;
export type OutcomeKind = (typeof OUTCOMES)[number];

export function outcomeShares(s: Pick<BetStats, OutcomeKind>): Array<{ kind: OutcomeKind; count: number; percent: number }> {
  const total = OUTCOMES.reduce((sum, k) => sum + s[k], 0);
  return OUTCOMES.map((kind) => ({ kind, count: s[kind], percent: total ? Math.round((s[kind] * 100) / total) : 0 }));
}

/** The sign of a money text: the profit's colour. */
export function profitClass(amount: string): 'is-up' | 'is-down' | '' {
  const value = new Big(amount || '0');
  return value.gt(0) ? 'is-up' : value.lt(0) ? 'is-down' : '';
}

/** A signed profit ('+12.50', '-3.00', '0.00'). */
export const signed = (text: string) => (profitClass(text) === 'is-up' ? `+${text}` : text);
