/**
 * The back office (a route chunk loaded on first use): staff login, the
 * counter-offer queue and one bet with the support decisions, the audit trail and
 * the replay check. Injected into the root reducer when the chunk loads.
 */
import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';
import type { BetRecord } from '../history/model';
import type { BoError } from './api';
import { loadStaffAuth, type StaffAuth } from './storage';
import type { Decision, OfferDetail, QueueItem, ReplayResult, Trail } from './types';

type Status = 'idle' | 'loading' | 'ready' | 'error';
export type QueueFilter = 'open' | 'all';

export interface BackofficeState {
  auth: StaffAuth | null;
  /** GET /me of a stored token under way. */
  checking: boolean;
  login: { pending: boolean; error: BoError | null };
  /** Why the login form is back (the session ended). */
  notice: string | null;
  queue: { filter: QueueFilter; list: QueueItem[]; status: Status; error: BoError | null; updatedAt: number | null };
  detail: { betId: string | null; data: OfferDetail | null; status: Status; error: BoError | null };
  decision: { pending: Decision | null; error: BoError | null; done: Decision | null };
  search: { betId: string; list: BetRecord[]; status: Status; error: BoError | null };
  trail: { betId: string | null; data: Trail | null; status: Status; error: BoError | null };
  replay: { status: Status; result: ReplayResult | null; error: BoError | null };
}

export const emptyState: BackofficeState = {
  auth: null,
  checking: false,
  login: { pending: false, error: null },
  notice: null,
  queue: { filter: 'open', list: [], status: 'idle', error: null, updatedAt: null },
  detail: { betId: null, data: null, status: 'idle', error: null },
  decision: { pending: null, error: null, done: null },
  search: { betId: '', list: [], status: 'idle', error: null },
  trail: { betId: null, data: null, status: 'idle', error: null },
  replay: { status: 'idle', result: null, error: null },
};

const signedOut = (notice: string | null): BackofficeState => ({ ...emptyState, notice });

export const backofficeSlice = createSlice({
  name: 'backoffice',
  initialState: (): BackofficeState => ({ ...emptyState, auth: loadStaffAuth() }),
  reducers: {
    loginRequested(state, _action: PayloadAction<{ username: string; password: string }>) {
      state.login = { pending: true, error: null };
      state.notice = null;
    },
    loginSucceeded(_state, action: PayloadAction<StaffAuth>) {
      return { ...emptyState, auth: action.payload };
    },
    loginFailed(state, action: PayloadAction<BoError>) {
      state.login = { pending: false, error: action.payload };
    },
    checkStarted(state) {
      state.checking = true;
    },
    checked(state, action: PayloadAction<{ username: string; role: string }>) {
      state.checking = false;
      if (state.auth) Object.assign(state.auth, action.payload);
    },
    checkFailed(state) {
      state.checking = false;
    },
    logoutRequested() {},
    loggedOut: () => signedOut(null),
    /** A 401 on any call: back to the login form. */
    sessionExpired: () => signedOut('bo.expired'),

    queueWatchStarted() {},
    queueWatchStopped() {},
    queueFilterChosen(state, action: PayloadAction<QueueFilter>) {
      state.queue.filter = action.payload;
      state.queue.status = 'loading';
    },
    queueLoading(state) {
      if (state.queue.status !== 'ready') state.queue.status = 'loading';
    },
    queueLoaded(state, action: PayloadAction<{ list: QueueItem[]; at: number }>) {
      state.queue = { ...state.queue, list: action.payload.list, status: 'ready', error: null, updatedAt: action.payload.at };
    },
    queueFailed(state, action: PayloadAction<BoError>) {
      state.queue.status = 'error';
      state.queue.error = action.payload;
    },

    detailRequested(state, action: PayloadAction<string>) {
      const same = state.detail.betId === action.payload;
      state.detail = { betId: action.payload, data: same ? state.detail.data : null, status: 'loading', error: null };
      if (!same) state.decision = emptyState.decision;
    },
    /** The bet's screen closed: it stops reloading. */
    detailWatchStopped() {},
    detailLoaded(state, action: PayloadAction<OfferDetail>) {
      state.detail.status = 'ready';
      state.detail.data = action.payload;
    },
    detailFailed(state, action: PayloadAction<BoError>) {
      state.detail.status = 'error';
      state.detail.error = action.payload;
    },

    offerRequested(_state, _action: PayloadAction<{ betId: string; amount?: number; price?: number; reason: string }>) {},
    acceptRequested(_state, _action: PayloadAction<{ betId: string; reason?: string }>) {},
    declineRequested(_state, _action: PayloadAction<{ betId: string; reason: string }>) {},
    decisionStarted(state, action: PayloadAction<Decision>) {
      state.decision = { pending: action.payload, error: null, done: null };
    },
    decisionSucceeded(state, action: PayloadAction<Decision>) {
      state.decision = { pending: null, error: null, done: action.payload };
    },
    decisionFailed(state, action: PayloadAction<BoError>) {
      state.decision = { pending: null, error: action.payload, done: null };
    },

    searchRequested(state, action: PayloadAction<string>) {
      state.search = { betId: action.payload, list: [], status: 'loading', error: null };
    },
    searchLoaded(state, action: PayloadAction<BetRecord[]>) {
      state.search.status = 'ready';
      state.search.list = action.payload;
    },
    searchFailed(state, action: PayloadAction<BoError>) {
      state.search.status = 'error';
      state.search.error = action.payload;
    },

    trailRequested(state, action: PayloadAction<string>) {
      state.trail = { betId: action.payload, data: null, status: 'loading', error: null };
    },
    trailLoaded(state, action: PayloadAction<Trail>) {
      state.trail.status = 'ready';
      state.trail.data = action.payload;
    },
    trailFailed(state, action: PayloadAction<BoError>) {
      state.trail.status = 'error';
      state.trail.error = action.payload;
    },

    replayRequested(state) {
      state.replay = { status: 'loading', result: null, error: null };
    },
    replayLoaded(state, action: PayloadAction<ReplayResult>) {
      state.replay = { status: 'ready', result: action.payload, error: null };
    },
    replayFailed(state, action: PayloadAction<BoError>) {
      state.replay = { status: 'error', result: null, error: action.payload };
    },
  },
});

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof backofficeSlice> {}
}

/** Injected when the chunk loads; reads the initial state until the first action. */
const injected = backofficeSlice.injectInto(rootReducer);
export const selectBackoffice = injected.selectSlice;

export const backofficeActions = backofficeSlice.actions;
export default backofficeSlice.reducer;
