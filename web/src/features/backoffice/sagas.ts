/**
 * Back office side effects. Every call carries the staff token; a 401 ends the staff
 * session (the login form comes back), a 403 stays with the screen that asked
 * ('Not allowed for your role'). The queue reloads every 5 s while it is shown.
 */
import { call, delay, put, race, select, take, takeLatest, takeLeading } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import type { RootState } from '../../app/store';
import type { BetRecord } from '../history/model';
import { boFetch, toBoError, type BoError, type BoFetch, type BoRequest } from './api';
import { backofficeActions as bo, selectBackoffice, type QueueFilter } from './backofficeSlice';
import { clearStaffAuth, saveStaffAuth, type StaffAuth } from './storage';
import type { Decision, LoginAnswer, OfferDetail, QueueItem, ReplayResult, Trail } from './types';

/** Queue (and bet) refresh while on screen. */
export const QUEUE_REFRESH_MS = 5000;

export interface BackofficeDeps {
  fetch: BoFetch;
}
export const defaultDeps: BackofficeDeps = { fetch: boFetch };

const selectToken = (s: RootState) => selectBackoffice(s).auth?.token ?? null;

/** A call with the staff token; a 401 ends the staff session before the error goes on. */
export function* boCall<T>(deps: BackofficeDeps, request: Omit<BoRequest, 'token'>): SagaIterator<T> {
  const token: string | null = yield select(selectToken);
  try {
    return (yield call(deps.fetch, { ...request, token })) as T;
  } catch (err) {
    const error = toBoError(err);
    if (error.kind === 'auth') yield put(bo.sessionExpired());
    throw error;
  }
}

const asBoError = (err: unknown): BoError =>
  err && typeof err === 'object' && 'kind' in err ? (err as BoError) : toBoError(err);

export function* login(deps: BackofficeDeps, action: PayloadAction<{ username: string; password: string }>): SagaIterator {
  try {
    const answer: LoginAnswer = yield call(deps.fetch, { method: 'POST', path: '/login', body: action.payload });
    const auth: StaffAuth = { token: answer.token, role: answer.role, username: answer.username, expires: answer.expires ?? null };
    yield call(saveStaffAuth, auth);
    yield put(bo.loginSucceeded(auth));
  } catch (err) {
    yield put(bo.loginFailed(toBoError(err)));
  }
}

export function* logout(deps: BackofficeDeps): SagaIterator {
  try {
    yield call(boCall, deps, { method: 'POST', path: '/logout' });
  } catch {
    /* the token ends here either way */
  }
  yield call(clearStaffAuth);
  yield put(bo.loggedOut());
}

/** A stored token is checked once: GET /me gives the role as the server sees it. */
export function* checkStored(deps: BackofficeDeps): SagaIterator {
  const token: string | null = yield select(selectToken);
  if (!token) return;
  yield put(bo.checkStarted());
  try {
    const me: { username: string; role: string } = yield call(boCall, deps, { method: 'GET', path: '/me' });
    yield put(bo.checked(me));
  } catch {
    yield put(bo.checkFailed());
  }
}

function* forget(): SagaIterator {
  yield call(clearStaffAuth);
}

export function* loadQueue(deps: BackofficeDeps): SagaIterator {
  const filter: QueueFilter = yield select((s: RootState) => selectBackoffice(s).queue.filter);
  yield put(bo.queueLoading());
  try {
    const list: QueueItem[] = yield call(boCall, deps, { method: 'GET', path: `/counter-offers?status=${filter}` });
    yield put(bo.queueLoaded({ list: Array.isArray(list) ? list : [], at: Date.now() }));
  } catch (err) {
    yield put(bo.queueFailed(asBoError(err)));
  }
}

/** While the queue is on screen: now, then every 5 s (a filter change reloads at once). */
export function* pollQueue(deps: BackofficeDeps): SagaIterator {
  for (;;) {
    yield call(loadQueue, deps);
    const { error }: { error: BoError | null } = yield select((s: RootState) => selectBackoffice(s).queue);
    if (error?.kind === 'auth' || error?.kind === 'forbidden') return;
    yield race({ tick: delay(QUEUE_REFRESH_MS), filter: take(bo.queueFilterChosen.type) });
  }
}

function* watchQueue(deps: BackofficeDeps): SagaIterator {
  yield race({ poll: call(pollQueue, deps), stop: take([bo.queueWatchStopped.type, bo.loggedOut.type, bo.sessionExpired.type]) });
}

export function* loadDetail(deps: BackofficeDeps, action: PayloadAction<string>): SagaIterator {
  try {
    const data: OfferDetail = yield call(boCall, deps, { method: 'GET', path: `/counter-offers/${encodeURIComponent(action.payload)}` });
    yield put(bo.detailLoaded(data));
  } catch (err) {
    yield put(bo.detailFailed(asBoError(err)));
  }
}

/** One bet on screen: now and every 5 s (the member's answer, a colleague's decision, the read model catching up). */
export function* watchDetail(deps: BackofficeDeps, action: PayloadAction<string>): SagaIterator {
  yield race({
    poll: call(function* () {
      for (;;) {
        yield call(loadDetail, deps, action);
        const { error }: { error: BoError | null } = yield select((s: RootState) => selectBackoffice(s).detail);
        if (error && error.kind !== 'network') return;
        yield delay(QUEUE_REFRESH_MS);
      }
    }),
    stop: take([bo.detailWatchStopped.type, bo.loggedOut.type, bo.sessionExpired.type]),
  });
}

/** Offer, accept or decline: one at a time; afterwards the bet and the queue load again. */
export function* decide(deps: BackofficeDeps, action: PayloadAction<{ betId: string } & Record<string, unknown>>): SagaIterator {
  const kind: Decision = action.type === bo.offerRequested.type ? 'offer' : action.type === bo.acceptRequested.type ? 'accept' : 'decline';
  const { betId, ...body } = action.payload;
  yield put(bo.decisionStarted(kind));
  try {
    yield call(boCall, deps, { method: 'POST', path: `/counter-offers/${encodeURIComponent(betId)}/${kind}`, body });
  } catch (err) {
    yield put(bo.decisionFailed(asBoError(err)));
    return;
  }
  yield put(bo.decisionSucceeded(kind));
  yield call(loadDetail, deps, bo.detailRequested(betId));
  yield call(loadQueue, deps);
}

export function* search(deps: BackofficeDeps, action: PayloadAction<string>): SagaIterator {
  try {
    const list: BetRecord[] | { list?: BetRecord[] } = yield call(boCall, deps, {
      method: 'GET', path: `/bets?bet_id=${encodeURIComponent(action.payload)}`,
    });
    yield put(bo.searchLoaded(Array.isArray(list) ? list : Array.isArray(list?.list) ? list.list : []));
  } catch (err) {
    yield put(bo.searchFailed(asBoError(err)));
  }
}

export function* loadTrail(deps: BackofficeDeps, action: PayloadAction<string>): SagaIterator {
  try {
    const trail: Trail = yield call(boCall, deps, { method: 'GET', path: `/bets/${encodeURIComponent(action.payload)}/events` });
    yield put(bo.trailLoaded({ ...trail, events: trail?.events ?? [], wallet: trail?.wallet ?? [] }));
  } catch (err) {
    yield put(bo.trailFailed(asBoError(err)));
  }
}

export function* replay(deps: BackofficeDeps): SagaIterator {
  try {
    const result: ReplayResult = yield call(boCall, deps, { method: 'POST', path: '/audit/replay' });
    yield put(bo.replayLoaded({ checked: Number(result?.checked ?? 0), differences: result?.differences ?? [] }));
  } catch (err) {
    yield put(bo.replayFailed(asBoError(err)));
  }
}

export function* backofficeSaga(deps: BackofficeDeps = defaultDeps): SagaIterator {
  yield takeLeading(bo.loginRequested.type, login, deps);
  yield takeLeading(bo.logoutRequested.type, logout, deps);
  yield takeLatest([bo.sessionExpired.type, bo.loggedOut.type], forget);
  yield takeLatest(bo.queueWatchStarted.type, watchQueue, deps);
  yield takeLatest(bo.detailRequested.type, watchDetail, deps);
  yield takeLeading([bo.offerRequested.type, bo.acceptRequested.type, bo.declineRequested.type], decide, deps);
  yield takeLatest(bo.searchRequested.type, search, deps);
  yield takeLatest(bo.trailRequested.type, loadTrail, deps);
  yield takeLeading(bo.replayRequested.type, replay, deps);
  yield call(checkStored, deps);
}
