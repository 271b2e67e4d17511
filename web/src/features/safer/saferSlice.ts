/**
 * The member's safer gambling settings (features/safer/model.ts): loaded when the page opens,
 * replaced by the answer of every change (each call answers the whole settings). One change runs
 * at a time; `action` says which one, so its section shows the outcome. Injected into the root
 * reducer when the account chunk loads.
 */
import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import type { ErrorInfo } from '../../api/http';
import { rootReducer } from '../../app/store';
import { sessionActions } from '../session/sessionSlice';
import type { LimitKind, LimitPeriod, RgSettings } from './model';

type Status = 'idle' | 'loading' | 'ready' | 'error';
/** What a change is: a limit set or removed, a time-out, a self-exclusion, the interval, the statement. */
export type SaferAction = 'limit' | 'remove' | 'timeout' | 'selfexclude' | 'realitycheck' | 'statement';

export interface SaferState {
  settings: RgSettings | null;
  status: Status;
  error: ErrorInfo | null;
  action: { name: SaferAction | null; status: 'idle' | 'pending' | 'done' | 'failed'; error: ErrorInfo | null };
}

export const initialSaferState: SaferState = {
  settings: null,
  status: 'idle',
  error: null,
  action: { name: null, status: 'idle', error: null },
};

/** A change starts unless one is under way (the saga drops that one too: takeLeading). */
const start = (state: SaferState, name: SaferAction) => {
  if (state.action.status !== 'pending') state.action = { name, status: 'pending', error: null };
};

export interface LimitChange {
  kind: LimitKind;
  period: LimitPeriod;
  /** A decimal string; '' removes the limit. */
  amount: string;
}

const saferSlice = createSlice({
  name: 'safer',
  initialState: initialSaferState,
  reducers: {
    loadRequested(state) {
      if (!state.settings) state.status = 'loading';
    },
    loaded(state, action: PayloadAction<RgSettings>) {
      state.settings = action.payload;
      state.status = 'ready';
      state.error = null;
    },
    loadFailed(state, action: PayloadAction<ErrorInfo>) {
      state.status = 'error';
      state.error = action.payload;
    },
    limitSetRequested(state, action: PayloadAction<LimitChange>) {
      start(state, action.payload.amount.trim() === '' ? 'remove' : 'limit');
    },
    timeoutRequested(state, _action: PayloadAction<number>) {
      start(state, 'timeout');
    },
    selfExcludeRequested(state, _action: PayloadAction<number>) {
      start(state, 'selfexclude');
    },
    realityCheckRequested(state, _action: PayloadAction<number>) {
      start(state, 'realitycheck');
    },
    statementRequested(state) {
      start(state, 'statement');
    },
    actionSucceeded(state) {
      state.action.status = 'done';
    },
    actionFailed(state, action: PayloadAction<ErrorInfo>) {
      state.action.status = 'failed';
      state.action.error = action.payload;
    },
    /** The section's outcome has been read (the form changed): it goes. */
    actionCleared(state) {
      if (state.action.status !== 'pending') state.action = initialSaferState.action;
    },
  },
  extraReducers: (builder) => {
    builder.addCase(sessionActions.loggedOut, () => initialSaferState);
  },
});

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof saferSlice> {}
}

const injected = saferSlice.injectInto(rootReducer);
export const selectSafer = injected.selectSlice;

export const saferActions = saferSlice.actions;
export default saferSlice.reducer;
