/** Bet records from POST report/betrecods: the history page, the right panel, one bet. */
import { call, delay, fork, put, select, takeLatest } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { ApiError, apiPost, toErrorInfo } from '../../api';
import type { RootState } from '../../app/store';
import { selectLoggedIn } from '../session/selectors';
import { historyActions } from './historySlice';
import { PAGE_SIZE, RECENT_WINDOW_S, presetRange, type BetRecord, type RangePreset } from './model';

export const BETRECORDS_PATH = 'report/betrecods';

interface Answer {
  list?: BetRecord[];
  total?: number;
}

/** The duplicate-submission guard (docs/protocol.md): the same call within 3 s, or one still running. */
const GUARD_CODES = [-66666, -66667];
/** Its wait when the answer does not say. */
export const GUARD_WAIT_MS = 3000;

const guardWait = (err: unknown): number | null => {
  if (!(err instanceof ApiError) || !GUARD_CODES.includes(err.status)) return null;
  const wait = Number((err.data as { wait?: unknown } | null | undefined)?.wait);
  return Number.isFinite(wait) && wait > 0 ? wait * 1000 : GUARD_WAIT_MS;
};

/**
 * report/betrecods, newest first. A read is no double submission: when the guard
 * refuses a repeat (a reload right after the page loaded), it is sent again once after the wait.
 */
export function* fetchRecords(params: Record<string, unknown>): SagaIterator<BetRecord[]> {
  let data: Answer | null;
  try {
    data = yield call(apiPost, BETRECORDS_PATH, { pn: PAGE_SIZE, ...params });
  } catch (err) {
    const wait = guardWait(err);
    if (wait === null) throw err;
    yield delay(wait);
    data = yield call(apiPost, BETRECORDS_PATH, { pn: PAGE_SIZE, ...params });
  }
  const list = Array.isArray(data?.list) ? data.list : [];
  return [...list].sort((a, b) => Number(b.date_time) - Number(a.date_time));
}

export function* loadHistory({ refresh = false } = {}): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) {
    yield put(historyActions.loaded([]));
    return;
  }
  const preset: RangePreset = yield select((s: RootState) => s.history.preset);
  const lang: string | null | undefined = yield select((s: Partial<RootState>) => s.i18n?.lang);
  const { from, to } = presetRange(preset, new Date(), lang); // days of the language's zone
  try {
    const list: BetRecord[] = yield call(fetchRecords, { from_date: from, to_date: to });
    yield put(historyActions.loaded(list));
  } catch (err) {
    if (!refresh) yield put(historyActions.failed(toErrorInfo(err))); // a failed refresh keeps the list on screen
  }
}

/** The last 24 hours; visitors see an empty list without a call. */
export function* loadRecent(): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) {
    yield put(historyActions.recentLoaded([]));
    return;
  }
  const now = Math.floor(Date.now() / 1000);
  try {
    const list: BetRecord[] = yield call(fetchRecords, { from_date: now - RECENT_WINDOW_S, to_date: now });
    yield put(historyActions.recentLoaded(list));
  } catch {
    yield put(historyActions.recentFailed());
  }
}

export function* loadDetail(action: PayloadAction<string>): SagaIterator {
  try {
    // a month back: the bet may be older than the list's range
    const lang: string | null | undefined = yield select((s: Partial<RootState>) => s.i18n?.lang);
    const { from, to } = presetRange('month', new Date(), lang);
    const list: BetRecord[] = yield call(fetchRecords, { BetId: action.payload, from_date: from, to_date: to });
    const record = list.find((r) => String(r.id) === action.payload || String(r.BetId) === action.payload) ?? null;
    yield put(historyActions.detailLoaded(record));
  } catch {
    yield put(historyActions.detailFailed());
  }
}

/** Reloads, without a loading state, whatever has been loaded: the list, the right panel, one bet. */
export function* reloadShown(): SagaIterator {
  const h: RootState['history'] = yield select((s: RootState) => s.history);
  if (h.status !== 'idle') yield fork(loadHistory, { refresh: true });
  if (h.recent.status !== 'idle') yield fork(loadRecent);
  if (h.detail.id) yield fork(loadDetail, historyActions.detailRequested(h.detail.id));
}

/** A change is read back after this pause: the bet history read model follows the events a moment later. */
export const READ_MODEL_LAG_MS = 1500;

export function* historySaga(): SagaIterator {
  yield takeLatest(historyActions.changed.type, function* () {
    yield delay(READ_MODEL_LAG_MS); // several changes in a row load once
    yield call(reloadShown);
  });
  yield takeLatest(historyActions.loadRequested.type, function* () {
    yield call(loadHistory);
  });
  yield takeLatest(historyActions.recentRequested.type, loadRecent);
  yield takeLatest(historyActions.detailRequested.type, loadDetail);
}
