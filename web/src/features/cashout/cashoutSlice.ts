/**
 * The cash-out dialog (spec 000 sections 4, 5, 7.5): the bet it is open for, the way
 * (manual or auto) and scope (full or partial), the amount calculate_cashout_amount
 * gave last, the outcome of a cash-out, and the bet's auto rule. Also the amounts
 * shown on the Cash out buttons of the bet list.
 */
import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { sessionActions } from '../session/sessionSlice';
import type { AutoCashoutRule, BetRecord } from '../history/model';
import { clampPartial, money2, type Bounds, type Msg } from './calc';

export type CashoutWay = 'manual' | 'auto';
export type CashoutScope = 'full' | 'partial';
type Status = 'idle' | 'loading' | 'ready' | 'error';

/** What the dialog needs of the bet record. */
export interface CashoutBet {
  id: string;
  type: number;
  amount: string;
  /** After partial cash-outs: the stake still running. */
  remainingStake: string | null;
  k: string;
  possibleWin: number;
  currency: string;
  /** Selections not yet settled: their prices move the amount. */
  eventIds: number[];
}

/** cashout answered Ok. */
export interface CashoutDone {
  amount: string;
  remainingStake: string;
  /** 5 after a full cash-out, 0 when a partial one left the bet running. */
  status: number;
}

export interface CashoutState {
  bet: CashoutBet | null;
  way: CashoutWay;
  scope: CashoutScope;
  /** The current full cash-out amount; null when the bet cannot be cashed out now. */
  amount: number | null;
  calc: Status;
  /** The partial amount as typed or slid. */
  partial: string;
  cashing: boolean;
  /** 'Fail': the server's amount, offered to accept with one tap. */
  suggested: number | null;
  /** 'NotAvailable' from a command. */
  notAvailable: boolean;
  done: CashoutDone | null;
  error: Msg | null;
  rule: AutoCashoutRule | null;
  ruleStatus: Status;
  auto: {
    trigger: string;
    partial: string;
    saving: boolean;
    cancelling: boolean;
    error: Msg | null;
    /** 1109 details: the bounds the server applied. */
    serverBounds: Bounds | null;
  };
  /** Bet list: the amount on each Cash out button (null: suspended). */
  amounts: Record<string, number | null>;
}

const initialAuto: CashoutState['auto'] = { trigger: '', partial: '', saving: false, cancelling: false, error: null, serverBounds: null };

export const initialState: CashoutState = {
  bet: null, way: 'manual', scope: 'full', amount: null, calc: 'idle', partial: '', cashing: false, suggested: null,
  notAvailable: false, done: null, error: null, rule: null, ruleStatus: 'idle', auto: initialAuto, amounts: {},
};

const num = (v: unknown) => {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
};

export function toCashoutBet(r: BetRecord): CashoutBet {
  return {
    id: String(r.id),
    type: Number(r.type),
    amount: String(r.amount),
    remainingStake: r.remaining_stake !== undefined && r.remaining_stake !== null && Number(r.remaining_stake) !== Number(r.amount)
      ? String(r.remaining_stake) : null,
    k: String(r.k),
    possibleWin: num(r.possible_win),
    currency: r.currency ?? '',
    eventIds: (r.events ?? []).filter((e) => e.outcome === undefined || e.outcome === 3)
      .map((e) => Number(e.selection_id)).filter((id) => Number.isFinite(id) && id > 0),
  };
}

/** A rule as the record or get_bet_auto_cashout gives it; anything without a trigger is no rule. */
export const toRule = (v: unknown): AutoCashoutRule | null => {
  const r = v as Partial<AutoCashoutRule> | null | undefined;
  return r && r.MinAmount !== undefined && r.MinAmount !== null ? { MinAmount: r.MinAmount, PartialAmount: r.PartialAmount ?? null } : null;
};

const cashoutSlice = createSlice({
  name: 'cashout',
  initialState,
  reducers: {
    opened: {
      reducer(state, action: PayloadAction<{ bet: CashoutBet; rule: AutoCashoutRule | null }>) {
        const known = state.amounts[action.payload.bet.id];
        Object.assign(state, { ...initialState, amounts: state.amounts });
        state.bet = action.payload.bet;
        state.rule = action.payload.rule;
        state.way = action.payload.rule ? 'auto' : 'manual';
        if (known !== undefined) state.amount = known;
        state.calc = 'loading';
      },
      prepare: (record: BetRecord) => ({ payload: { bet: toCashoutBet(record), rule: toRule(record.auto_cashout) } }),
    },
    closed(state) {
      Object.assign(state, { ...initialState, amounts: state.amounts });
    },
    wayChosen(state, action: PayloadAction<CashoutWay>) {
      state.way = action.payload;
      state.error = null;
    },
    scopeChosen(state, action: PayloadAction<CashoutScope>) {
      state.scope = action.payload;
      state.error = null;
      if (action.payload === 'partial' && state.partial === '' && state.amount !== null) {
        state.partial = money2(Math.floor(state.amount * 50) / 100); // half, to start from
      }
    },
    partialChanged(state, action: PayloadAction<string>) {
      state.partial = action.payload;
      state.error = null;
    },
    amountLoaded(state, action: PayloadAction<{ id: string; amount: number | null }>) {
      state.amounts[action.payload.id] = action.payload.amount;
      if (state.bet?.id !== action.payload.id) return;
      state.calc = 'ready';
      state.amount = action.payload.amount;
      if (action.payload.amount !== null) state.partial = clampPartial(state.partial, action.payload.amount);
    },
    amountFailed(state) {
      state.calc = 'error';
    },
    listAmountsLoaded(state, action: PayloadAction<Record<string, number | null>>) {
      Object.assign(state.amounts, action.payload);
    },
    /** The Cash out button; `price` when the member takes the amount the server suggested. */
    cashoutRequested: {
      reducer(state, action: PayloadAction<{ price: number | null }>) {
        if (action.payload.price !== null) {
          state.amount = action.payload.price;
          state.partial = clampPartial(state.partial, action.payload.price);
        }
        state.error = null;
        state.suggested = null;
      },
      prepare: (price?: number) => ({ payload: { price: price ?? null } }),
    },
    cashoutStarted(state) {
      state.cashing = true;
    },
    cashoutSucceeded(state, action: PayloadAction<CashoutDone>) {
      state.cashing = false;
      state.done = action.payload;
    },
    /** 'Fail': the amount moved; details.new_price is offered. */
    cashoutMoved(state, action: PayloadAction<number>) {
      state.cashing = false;
      state.suggested = action.payload;
      state.amount = action.payload;
      if (state.bet) state.amounts[state.bet.id] = action.payload;
    },
    notAvailable(state) {
      state.cashing = false;
      state.auto.saving = false;
      state.notAvailable = true;
    },
    cashoutFailed(state, action: PayloadAction<Msg>) {
      state.cashing = false;
      state.error = action.payload;
    },
    ruleLoaded(state, action: PayloadAction<AutoCashoutRule | null>) {
      state.ruleStatus = 'ready';
      state.rule = action.payload;
      if (action.payload) state.way = 'auto';
    },
    ruleLoadFailed(state) {
      state.ruleStatus = 'error';
    },
    triggerChanged(state, action: PayloadAction<string>) {
      state.auto.trigger = action.payload;
      state.auto.error = null;
    },
    autoPartialChanged(state, action: PayloadAction<string>) {
      state.auto.partial = action.payload;
      state.auto.error = null;
    },
    ruleRequested(state) {
      state.auto.error = null;
    },
    ruleSaving(state) {
      state.auto.saving = true;
    },
    ruleSet(state, action: PayloadAction<AutoCashoutRule>) {
      state.auto = initialAuto;
      state.rule = action.payload;
    },
    ruleRefused(state, action: PayloadAction<{ error: Msg; bounds: Bounds | null }>) {
      state.auto.saving = false;
      state.auto.error = action.payload.error;
      state.auto.serverBounds = action.payload.bounds;
    },
    ruleCancelRequested(state) {
      state.auto.cancelling = true;
      state.auto.error = null;
    },
    ruleCancelled(state) {
      state.auto.cancelling = false;
      state.rule = null;
    },
    ruleCancelFailed(state, action: PayloadAction<Msg>) {
      state.auto.cancelling = false;
      state.auto.error = action.payload;
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, () => initialState);
  },
});

export const cashoutActions = cashoutSlice.actions;
export default cashoutSlice.reducer;
