import { call, debounce, put, select, takeEvery } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { apiPost } from '../../api';
import type { RootState } from '../../app/store';
import { SEARCH_DEBOUNCE_MS, searchable } from './search';
import { ODDS_FORMAT_STORAGE_KEY, sportActions, type SearchGroup } from './sportSlice';
import type { OddsFormat } from '../../shared/odds';

export const SEARCH_PATH = 'sport/search';

/** Runs 800 ms after the last keystroke; a term below the minimum hides the results. */
export function* searchFlow(action: PayloadAction<string>): SagaIterator {
  const term = action.payload;
  const lang: string | null = yield select((s: RootState) => s.i18n.lang);
  if (!searchable(term, lang)) {
    yield put(sportActions.searchCleared());
    return;
  }
  yield put(sportActions.searchStarted());
  try {
    const groups: SearchGroup[] = yield call(apiPost, SEARCH_PATH, { term: term.trim(), language: lang ?? 'eng' });
    const current: string = yield select((s: RootState) => s.sport.searchTerm);
    if (current !== term) return; // typed on meanwhile: the next search answers
    yield put(sportActions.searchAnswered(Array.isArray(groups) ? groups : []));
  } catch {
    yield put(sportActions.searchFailed());
  }
}

function saveFormat(format: OddsFormat) {
  try {
    localStorage.setItem(ODDS_FORMAT_STORAGE_KEY, format);
  } catch {
    /* storage disabled: the choice lasts for this visit */
  }
}

export function* sportSaga(): SagaIterator {
  yield debounce(SEARCH_DEBOUNCE_MS, sportActions.searchTyped.type, searchFlow);
  yield takeEvery(sportActions.oddsFormatChosen.type, function* (action: PayloadAction<OddsFormat>) {
    yield call(saveFormat, action.payload);
  });
}
