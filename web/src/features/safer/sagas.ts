/**
 * Safer gambling calls (DESIGN.md "Responsible gambling (wire contract)"): user/rglimits when
 * the page opens; rglimitset, timeout, selfexclude and realitycheck, each answering the whole
 * settings; the 12-month statement
 * (GET user/statement, text/csv) saved as statement.csv. Changes run one at a time.
 */
import { call, put, takeLatest, takeLeading } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { apiDownload, apiPost, toErrorInfo } from '../../api';
import { saveBlob } from '../../shared/download';
import { settingsOf } from './model';
import { saferActions as safer, type LimitChange } from './saferSlice';

export const STATEMENT_MONTHS = 12;
export const STATEMENT_FILE = 'statement.csv';

export function* loadSettings(): SagaIterator {
  try {
    const data: unknown = yield call(apiPost, 'user/rglimits', {});
    yield put(safer.loaded(settingsOf(data)));
  } catch (err) {
    yield put(safer.loadFailed(toErrorInfo(err)));
  }
}

/** One change: its answer is the settings as they are now. */
function* change(path: string, params: Record<string, unknown>): SagaIterator {
  try {
    const data: unknown = yield call(apiPost, path, params);
    yield put(safer.loaded(settingsOf(data)));
    yield put(safer.actionSucceeded());
  } catch (err) {
    yield put(safer.actionFailed(toErrorInfo(err)));
  }
}

export function* setLimit(action: PayloadAction<LimitChange>): SagaIterator {
  const { kind, period, amount } = action.payload;
  yield call(change, 'user/rglimitset', { kind, period, amount: amount.trim() });
}

export function* takeTimeout(action: PayloadAction<number>): SagaIterator {
  yield call(change, 'user/timeout', { hours: action.payload });
}

export function* selfExclude(action: PayloadAction<number>): SagaIterator {
  yield call(change, 'user/selfexclude', { months: action.payload });
}

export function* setRealityCheck(action: PayloadAction<number>): SagaIterator {
  yield call(change, 'user/realitycheck', { minutes: action.payload });
}

export function* downloadStatement(): SagaIterator {
  try {
    const blob: Blob = yield call(apiDownload, 'user/statement', { months: STATEMENT_MONTHS });
    yield call(saveBlob, blob, STATEMENT_FILE);
    yield put(safer.actionSucceeded());
  } catch (err) {
    yield put(safer.actionFailed(toErrorInfo(err)));
  }
}

const CHANGES = [
  safer.limitSetRequested.type, safer.timeoutRequested.type, safer.selfExcludeRequested.type, safer.realityCheckRequested.type,
  safer.statementRequested.type,
];

function* route(action: PayloadAction<unknown>): SagaIterator {
  switch (action.type) {
    case safer.limitSetRequested.type: return yield call(setLimit, action as PayloadAction<LimitChange>);
    case safer.timeoutRequested.type: return yield call(takeTimeout, action as PayloadAction<number>);
    case safer.selfExcludeRequested.type: return yield call(selfExclude, action as PayloadAction<number>);
    case safer.realityCheckRequested.type: return yield call(setRealityCheck, action as PayloadAction<number>);
    default: return yield call(downloadStatement);
  }
}

export function* saferSaga(): SagaIterator {
  yield takeLatest(safer.loadRequested.type, loadSettings);
  // one change at a time, whichever section asked: a second submit waits for nothing, it is dropped
  yield takeLeading(CHANGES, route);
}
