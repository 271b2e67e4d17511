import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';

/** The balance answer; money fields are decimal strings and stay strings. */
export interface BalanceInfo {
  balance: string;
  bonus_balance: string;
  bonus_win_balance: string;
  frozen_balance: string;
  currency: string;
}

export interface BalanceState {
  /** unknown until the first answer; guest when the server says "not logged in". */
  session: 'unknown' | 'member' | 'guest';
  info: BalanceInfo | null;
  loading: boolean;
  /** The last failure other than "not logged in"; the last known balance stays shown. */
  error: ErrorInfo | null;
}

const initialState: BalanceState = { session: 'unknown', info: null, loading: false, error: null };

const balanceSlice = createSlice({
  name: 'balance',
  initialState,
  reducers: {
    /** Fetch now instead of waiting for the next poll (after a bet, a deposit, a login). */
    refreshRequested() {},
    fetchStarted(state) {
      state.loading = true;
    },
    fetched(state, action: PayloadAction<BalanceInfo>) {
      state.loading = false;
      state.session = 'member';
      state.info = action.payload;
      state.error = null;
    },
    notLoggedIn(state) {
      state.loading = false;
      state.session = 'guest';
      state.info = null;
      state.error = null;
    },
    fetchFailed(state, action: PayloadAction<ErrorInfo>) {
      state.loading = false;
      state.error = action.payload;
    },
  },
});

export const balanceActions = balanceSlice.actions;
export default balanceSlice.reducer;
