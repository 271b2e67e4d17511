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
  /**
   * What answers told of bets (a cash-out, an accepted counter offer) before the bet
   * history read model shows it: laid over the next loads until a load agrees on the
   * status, or PATCH_LOADS loads have passed.
   */
  patches: Record<string, { changes: Partial<BetRecord>; loads: number }>;
}

/** Loads a patch outlives when the read model keeps disagreeing. */
export const PATCH_LOADS = 3;
const STATUS_FIELDS = ['outcome', 'super_bet_status'] as const;

const initialState: HistoryState = {
  preset: 'today',
  tab: 'unsettled',
  list: [],
  status: 'idle',
  error: null,
  recent: { tab: 'settled', list: [], status: 'idle' },
  detail: { id: null, record: null, status: 'idle' },
  panelOpen: false,
  patches: {},
};

const sameBet = (id: string) => (r: BetRecord) => String(r.id) === id;

/** Lays the patches over freshly loaded records; a patch goes once a load agrees or it has outlived PATCH_LOADS. */
function applyPatches(state: HistoryState, records: BetRecord[]) {
  for (const [id, patch] of Object.entries(state.patches)) {
    const record = records.find(sameBet(id));
    if (!record) continue;
    const agrees = STATUS_FIELDS.every((f) => !(f in patch.changes) || String(record[f]) === String(patch.changes[f]));
    patch.loads -= 1;
    if (agrees || patch.loads <= 0) delete state.patches[id];
    else Object.assign(record, patch.changes);
  }
}

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
      applyPatches(state, state.list);
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
      applyPatches(state, state.recent.list);
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
      if (state.detail.record) applyPatches(state, [state.detail.record]);
    },
    detailFailed(state) {
      state.detail.status = 'error';
    },
    /** A bet changed (cash-out, counter offer, support's answer): what is on screen loads again. */
    changed() {},
    /** What an answer already tells of one bet (a cash-out), shown until the list loads again. */
    betPatched(state, action: PayloadAction<{ id: string; changes: Partial<BetRecord> }>) {
      const { id, changes } = action.payload;
      const same = sameBet(id);
      for (const r of [...state.list, ...state.recent.list]) if (same(r)) Object.assign(r, changes);
      if (state.detail.record && same(state.detail.record)) Object.assign(state.detail.record, changes);
      state.patches[id] = { changes, loads: PATCH_LOADS };
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, (state) => {
      state.list = [];
      state.status = 'idle';
      state.recent.list = [];
      state.recent.status = 'idle';
      state.detail = initialState.detail;
      state.patches = {};
    });
  },
});

export const historyActions = historySlice.actions;
export default historySlice.reducer;
