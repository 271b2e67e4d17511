import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';
import { rootReducer } from '../../app/store';
import { sessionActions } from '../session/sessionSlice';
import type { LedgerRow, LevelInfo, McoinDetail, VipDetail } from './model';

type Status = 'idle' | 'loading' | 'ready' | 'error';

export interface VipState {
  detail: VipDetail | null;
  levels: LevelInfo[];
  status: Status;
  error: ErrorInfo | null;
  xp: { list: LedgerRow[]; total: number; status: Status };
  mcoin: { data: McoinDetail | null; status: Status };
  /** The claim under way or last answered: 'gift:2', 'rebate'. */
  claim: { key: string | null; status: 'idle' | 'pending' | 'done' | 'error'; amount: string | null; error: ErrorInfo | null };
}

const initialState: VipState = {
  detail: null,
  levels: [],
  status: 'idle',
  error: null,
  xp: { list: [], total: 0, status: 'idle' },
  mcoin: { data: null, status: 'idle' },
  claim: { key: null, status: 'idle', amount: null, error: null },
};

const vipSlice = createSlice({
  name: 'vip',
  initialState,
  reducers: {
    detailRequested(state) {
      if (!state.detail) state.status = 'loading';
    },
    detailLoaded(state, action: PayloadAction<{ detail: VipDetail; levels: LevelInfo[] }>) {
      state.detail = action.payload.detail;
      state.levels = action.payload.levels;
      state.status = 'ready';
      state.error = null;
    },
    detailFailed(state, action: PayloadAction<ErrorInfo>) {
      state.status = 'error';
      state.error = action.payload;
    },
    xpRequested(state) {
      state.xp.status = 'loading';
    },
    xpLoaded(state, action: PayloadAction<{ list: LedgerRow[]; total: number }>) {
      state.xp = { ...action.payload, status: 'ready' };
    },
    xpFailed(state) {
      state.xp.status = 'error';
    },
    mcoinRequested(state) {
      state.mcoin.status = 'loading';
    },
    mcoinLoaded(state, action: PayloadAction<McoinDetail>) {
      state.mcoin = { data: action.payload, status: 'ready' };
    },
    mcoinFailed(state) {
      state.mcoin.status = 'error';
    },
    giftClaimRequested(state, action: PayloadAction<number>) {
      state.claim = { key: `gift:${action.payload}`, status: 'pending', amount: null, error: null };
    },
    rebateClaimRequested(state) {
      state.claim = { key: 'rebate', status: 'pending', amount: null, error: null };
    },
    claimDone(state, action: PayloadAction<string>) {
      state.claim.status = 'done';
      state.claim.amount = action.payload;
    },
    claimFailed(state, action: PayloadAction<ErrorInfo>) {
      state.claim.status = 'error';
      state.claim.error = action.payload;
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, () => initialState);
  },
});

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof vipSlice> {}
}

/** Injected when the hall of honour chunk loads. */
const injected = vipSlice.injectInto(rootReducer);
export const selectVip = injected.selectSlice;

export const vipActions = vipSlice.actions;
export default vipSlice.reducer;
