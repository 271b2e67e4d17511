/**
 * Bet records (docs/protocol.md "POST /api/report/betrecods"; spec 000 section 3, Bet)
 * and how an outcome is shown (spec 000 section 4; spec 001 section 4).
 */
import { presetRange as datePresetRange, type DatePreset } from '../../shared/time';

export interface BetRecordEvent {
  competition_name?: string;
  team1?: string;
  team2?: string;
  sport_name?: string;
  region_name?: string;
  game_name?: string;
  market_name?: string;
  event_name?: string;
  coeficient?: string | number;
  sport_id?: number;
  game_id?: number;
  selection_id?: number;
  /** 3 = not yet settled. */
  outcome?: number;
}

export interface BetRecord {
  id: number | string;
  BetId?: number | string;
  type: number;
  system_min_count?: number | null;
  date_time: number;
  amount: string | number;
  bonus_bet_amount?: string | number | null;
  bonus?: string | number | null;
  Bonus?: string | number | null;
  k: string | number;
  possible_win?: string | number | null;
  payout?: string | number | null;
  outcome: number;
  cash_out?: boolean | number | null;
  /** Paid by cash-outs so far ("0.00"). */
  cashout_amount?: string | number | null;
  remaining_stake?: string | number | null;
  is_super_bet?: boolean | number | null;
  /** 0 pending, 1 accepted, -1 declined; null for other bets. */
  super_bet_status?: number | null;
  counter_offer?: CounterOfferTerms | null;
  auto_cashout?: AutoCashoutRule | null;
  currency?: string;
  events?: BetRecordEvent[];
}

/** Support's counter offer to a super bet (docs/cashout-and-backoffice.md). */
export interface CounterOfferTerms {
  amount?: string | number | null;
  price?: string | number | null;
  reason?: string | null;
  /** Millisecond epoch. */
  at?: number | null;
}

/** An auto cash-out rule as get_bet_auto_cashout and the bet records carry it. */
export interface AutoCashoutRule {
  MinAmount: string | number;
  PartialAmount: string | number | null;
}

/** Bet status codes. */
export const OUTCOME = { ON_HOLD: -5, DECLINED: -4, UNSETTLED: 0, LOST: 1, RETURNED: 2, WON: 3, CASHED_OUT: 5 } as const;

export const STATUS_KEYS: Record<number, string> = {
  [-5]: 'history.status.on_hold',
  [-4]: 'history.status.declined',
  0: 'history.status.unsettled',
  1: 'history.status.lost',
  2: 'history.status.returned',
  3: 'history.status.won',
  5: 'history.status.cashed_out',
};

export const TYPE_KEYS: Record<number, string> = {
  1: 'betslip.type.single',
  2: 'betslip.type.express',
  3: 'betslip.type.system',
  4: 'betslip.type.chain',
};

/** Super bet status (spec 000 section 4). */
export const SUPER_BET = { PENDING: 0, ACCEPTED: 1, DECLINED: -1 } as const;

/** Bet types that can be cashed out: single and express (spec 000 section 4). */
export const CASHOUT_TYPES = [1, 2];

/** The Cash out button: an unsettled single or express with the cash_out flag. */
export const cashoutOffered = (r: Pick<BetRecord, 'cash_out' | 'outcome' | 'type'>) =>
  Boolean(r.cash_out) && r.outcome === OUTCOME.UNSETTLED && CASHOUT_TYPES.includes(Number(r.type));

/** An on-hold super bet waiting for support or for the member's answer. */
export const awaitsAnswer = (r: Pick<BetRecord, 'outcome' | 'super_bet_status'>) =>
  r.outcome === OUTCOME.ON_HOLD && (r.super_bet_status ?? SUPER_BET.PENDING) === SUPER_BET.PENDING;

/** Settled means anything but unsettled and on hold. */
export const isSettled = (r: Pick<BetRecord, 'outcome'>) => r.outcome !== OUTCOME.UNSETTLED && r.outcome !== OUTCOME.ON_HOLD;

export interface OutcomeView {
  /** Status class: unsettled, lost or won. */
  cls: 'unsettled' | 'lost' | 'won';
  statusKey: string;
  /** 'Won', 'Payout' or 'Possible win'. */
  labelKey: string;
  amount: string;
  /** A won bet's bonus, shown as an extra. */
  bonus: string | null;
}

const money = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? '0' : String(v));

/**
 * unsettled (0, on hold) / lost (1, declined) / won (won, returned, cashed out: money
 * came back). Won shows 'Won' with the payout and the bonus as an extra, cashed out
 * 'Payout', the rest 'Possible win'.
 */
export function outcomeView(r: BetRecord): OutcomeView {
  const cls = r.outcome === OUTCOME.LOST || r.outcome === OUTCOME.DECLINED ? 'lost'
    : r.outcome === OUTCOME.WON || r.outcome === OUTCOME.RETURNED || r.outcome === OUTCOME.CASHED_OUT ? 'won'
      : 'unsettled';
  const statusKey = STATUS_KEYS[r.outcome] ?? 'history.status.unsettled';
  if (r.outcome === OUTCOME.WON) {
    const bonus = r.bonus ?? r.Bonus;
    return { cls, statusKey, labelKey: 'history.won', amount: money(r.payout), bonus: bonus && Number(bonus) > 0 ? String(bonus) : null };
  }
  if (r.outcome === OUTCOME.CASHED_OUT) return { cls, statusKey, labelKey: 'history.payout', amount: money(r.payout), bonus: null };
  return { cls, statusKey, labelKey: 'history.possible_win', amount: money(r.possible_win), bonus: null };
}

export type RangePreset = DatePreset;
export const RANGE_PRESETS: RangePreset[] = ['today', 'yesterday', 'last2', 'last3', 'week', 'month'];
/** The right panel's window (spec 000 section 9: 86400 s, page size 1000). */
export const RECENT_WINDOW_S = 86_400;
export const PAGE_SIZE = 1000;

/** [from, to) in unix seconds (spec 000 section 9 date presets): days of the language's zone, or the device's without one (shared/time.ts). */
export function presetRange(preset: RangePreset, now = new Date(), lang?: string | null): { from: number; to: number } {
  return datePresetRange(preset, now, lang);
}
