/** Bet records from POST report/betrecods: the history page, the right panel, one bet. */
import { call, put, select, takeLatest } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { apiPost, toErrorInfo } from '../../api';
import type { RootState } from '../../app/store';
import { selectLoggedIn } from '../session/selectors';
import { historyActions } from './historySlice';
import { PAGE_SIZE, RECENT_WINDOW_S, presetRange, type BetRecord, type RangePreset } from './model';

export const BETRECORDS_PATH = 'report/betrecods';

interface Answer {
  list?: BetRecord[];
  total?: number;
}

export function* fetchRecords(params: Record<string, unknown>): SagaIterator<BetRecord[]> {
  const data: Answer | null = yield call(apiPost, BETRECORDS_PATH, { pn: PAGE_SIZE, ...params });
  const list = Array.isArray(data?.list) ? data.list : [];
  return [...list].sort((a, b) => Number(b.date_time) - Number(a.date_time));
}

export function* loadHistory(): SagaIterator {
  const loggedIn: boolean = yield select(selectLoggedIn);
  if (!loggedIn) {
    yield put(historyActions.loaded([]));
    return;
  }
  const preset: RangePreset = yield select((s: RootState) => s.history.preset);
  const { from, to } = presetRange(preset);
  try {
    const list: BetRecord[] = yield call(fetchRecords, { from_date: from, to_date: to });
    yield put(historyActions.loaded(list));
  } catch (err) {
    yield put(historyActions.failed(toErrorInfo(err)));
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
    const { from, to } = presetRange('month');
    const list: BetRecord[] = yield call(fetchRecords, { BetId: action.payload, from_date: from, to_date: to });
    const record = list.find((r) => String(r.id) === action.payload || String(r.BetId) === action.payload) ?? null;
    yield put(historyActions.detailLoaded(record));
  } catch {
    yield put(historyActions.detailFailed());
  }
}

export function* historySaga(): SagaIterator {
  yield takeLatest(historyActions.loadRequested.type, loadHistory);
  yield takeLatest(historyActions.recentRequested.type, loadRecent);
  yield takeLatest(historyActions.detailRequested.type, loadDetail);
}
