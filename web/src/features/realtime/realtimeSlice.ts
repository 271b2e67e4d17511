import { createSlice, type PayloadAction } from '@reduxjs/toolkit';

/** Winning-tip notification types (spec 000 section 9). */
export const TIP_TYPES = [1000, 1001, 1002, 1003, 1004, 1005, 1010];
export const WIN_TIP = 1004;
/** Text tips; some carry news of one of the member's bets (docs/cashout-and-backoffice.md "Realtime"). */
export const TEXT_TIP = 1002;
export const BET_SUBJECTS = ['counter_offer', 'super_bet_accepted', 'super_bet_declined', 'cashout'] as const;
export type BetSubject = (typeof BET_SUBJECTS)[number];
export const isBetSubject = (v: unknown): v is BetSubject => BET_SUBJECTS.includes(v as BetSubject);

/**
 * The reality check (DESIGN.md "Responsible gambling"): at the member's interval, a modal, not a
 * pop-over. Kept as sent; its lazily loaded modal reads it (RealityCheckPopup.tsx `realityCheckOf`),
 * and drops one that is malformed or outlived the member's login.
 */
export const REALITY_CHECK_TIP = 1020;

export interface Tip {
  id: number;
  type: number;
  data: Record<string, unknown>;
}

export interface RealtimeState {
  connected: boolean;
  clientId: string | null;
  /** The client id bound to the member with user/bindws. */
  boundId: string | null;
  tips: Tip[];
  /** The reality check on screen (its payload), until the member continues or logs out. */
  realityCheck: Record<string, unknown> | null;
}

const initialState: RealtimeState = { connected: false, clientId: null, boundId: null, tips: [], realityCheck: null };
let nextTip = 0;

const realtimeSlice = createSlice({
  name: 'realtime',
  initialState,
  reducers: {
    connected(state, action: PayloadAction<boolean>) {
      state.connected = action.payload;
      if (!action.payload) {
        state.clientId = null;
        state.boundId = null;
      }
    },
    clientIdReceived(state, action: PayloadAction<string>) {
      state.clientId = action.payload;
    },
    bound(state, action: PayloadAction<string | null>) {
      state.boundId = action.payload;
    },
    tipReceived: {
      reducer(state, action: PayloadAction<Tip>) {
        state.tips.push(action.payload);
      },
      prepare: (tip: Omit<Tip, 'id'>) => ({ payload: { ...tip, id: ++nextTip } }),
    },
    /** A tip about a bet: the history, the open dialogs and the balance follow. */
    betNotified(_state, _action: PayloadAction<{ subject: BetSubject; id: string; money?: string }>) {},
    tipDismissed(state, action: PayloadAction<number>) {
      state.tips = state.tips.filter((t) => t.id !== action.payload);
    },
    /** A newer check replaces one still open (its figures include the earlier ones). */
    realityCheckReceived(state, action: PayloadAction<Record<string, unknown>>) {
      state.realityCheck = action.payload;
    },
    realityCheckClosed(state) {
      state.realityCheck = null;
    },
  },
});

export const realtimeActions = realtimeSlice.actions;
export default realtimeSlice.reducer;
