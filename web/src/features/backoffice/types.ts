/** Answers of the back office API (docs/cashout-and-backoffice.md "Back office"). */
import type { BetRecord, CounterOfferTerms } from '../history/model';

export interface LoginAnswer {
  token: string;
  role: string;
  username: string;
  expires: number | string | null;
}

/** A selection of a queued bet: the contract's shape, or a bet record's event (game_name, market_name ...). */
export interface QueueEvent {
  event_id?: number;
  game?: string;
  market?: string;
  selection?: string;
  price?: number | string;
  selection_id?: number;
  game_name?: string;
  team1?: string;
  team2?: string;
  market_name?: string;
  event_name?: string;
  coeficient?: number | string;
}

/** One selection as the screens show it, whichever shape the server sent. */
export function selectionOf(e: QueueEvent, index: number) {
  return {
    key: String(e.event_id ?? e.selection_id ?? index),
    game: e.game ?? e.game_name ?? [e.team1, e.team2].filter(Boolean).join(' - '),
    market: e.market ?? e.market_name ?? '',
    selection: e.selection ?? e.event_name ?? '',
    price: e.price ?? e.coeficient ?? null,
  };
}

/** A super bet in the counter-offer queue. */
export interface QueueItem {
  bet_id: number | string;
  user_id: number | string;
  username: string;
  currency: string;
  type: number;
  amount: string | number;
  k: string | number | null;
  possible_win: string | number | null;
  /** Epoch ms or s, or a date string. */
  placed_at: number | string;
  status: number;
  super_bet_status: number | null;
  counter_offer: CounterOfferTerms | null;
  events: QueueEvent[];
}

export interface OfferDetail {
  bet: QueueItem;
  member: { user_id: number | string; username: string; currency: string; balance: string | number; max_stake: string | number | null };
  recent: BetRecord[];
}

export interface TrailEvent {
  sequence: number;
  event_type: string;
  recorded_at: number | string;
  payload: unknown;
  metadata: Record<string, unknown> | null;
  state: unknown;
}

export interface WalletMovement {
  sequence: number;
  event_type: string;
  recorded_at: number | string;
  reference: string | null;
  payload: unknown;
  balances: unknown;
}

export interface Trail {
  bet_id: number | string;
  events: TrailEvent[];
  wallet: WalletMovement[];
}

export interface ReplayResult {
  checked: number;
  differences: Array<{ bet_id: number | string; field: string; store: unknown; read_model: unknown }>;
}

export type Decision = 'offer' | 'accept' | 'decline';
