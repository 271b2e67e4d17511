import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';
import { sessionActions } from '../session/sessionSlice';
import type { BetRecord, RangePreset } from './model';

export type HistoryTab = 'settled' | 'unsettled';
type Status = 'idle' | 'loading' | 'ready' | 'error';

export interface HistoryState {
  preset: RangePreset;
  tab: HistoryTab;
  list: BetRecord[];
  status: Status;
  error: ErrorInfo | null;
  /** The right panel: the last 24 hours. */
  recent: { tab: HistoryTab; list: BetRecord[]; status: Status };
  /** /history/bet/{id} when the bet is not in the list. */
  detail: { id: string | null; record: BetRecord | null; status: Status };
  panelOpen: boolean;
}

const initialState: HistoryState = {
  preset: 'today',
  tab: 'unsettled',
  list: [],
  status: 'idle',
  error: null,
  recent: { tab: 'settled', list: [], status: 'idle' },
  detail: { id: null, record: null, status: 'idle' },
  panelOpen: false,
};

const historySlice = createSlice({
  name: 'history',
  initialState,
  reducers: {
    rangeChosen(state, action: PayloadAction<RangePreset>) {
      state.preset = action.payload;
    },
    tabChosen(state, action: PayloadAction<HistoryTab>) {
      state.tab = action.payload;
    },
    loadRequested(state) {
      state.status = 'loading';
      state.error = null;
    },
    loaded(state, action: PayloadAction<BetRecord[]>) {
      state.status = 'ready';
      state.list = action.payload;
    },
    failed(state, action: PayloadAction<ErrorInfo>) {
      state.status = 'error';
      state.error = action.payload;
    },
    panelToggled(state, action: PayloadAction<boolean>) {
      state.panelOpen = action.payload;
    },
    recentTabChosen(state, action: PayloadAction<HistoryTab>) {
      state.recent.tab = action.payload;
    },
    recentRequested(state) {
      state.recent.status = 'loading';
    },
    recentLoaded(state, action: PayloadAction<BetRecord[]>) {
      state.recent.status = 'ready';
      state.recent.list = action.payload;
    },
    recentFailed(state) {
      state.recent.status = 'error';
    },
    detailRequested(state, action: PayloadAction<string>) {
      state.detail = { id: action.payload, record: null, status: 'loading' };
    },
    detailLoaded(state, action: PayloadAction<BetRecord | null>) {
      state.detail.record = action.payload;
      state.detail.status = 'ready';
    },
    detailFailed(state) {
      state.detail.status = 'error';
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, (state) => {
      state.list = [];
      state.status = 'idle';
      state.recent.list = [];
      state.recent.status = 'idle';
      state.detail = initialState.detail;
    });
  },
});

export const historyActions = historySlice.actions;
export default historySlice.reducer;
