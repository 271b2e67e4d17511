import { call, put, takeEvery } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { apiPost, toErrorInfo } from '../../api';
import { establishFromAnswer } from '../session/sagas';
import { sessionActions } from '../session/sessionSlice';
import type { LoginAnswer } from '../session/types';
import { uiActions } from '../shell/uiSlice';
import { formsActions, type FormRequest } from './formsSlice';

/** One form submission; a second submit of the same form waits in the button (disabled while pending). */
export function* submitForm(action: PayloadAction<FormRequest>): SagaIterator {
  const { id, path, verify, after } = action.payload;
  let params = action.payload.params;
  try {
    for (const check of verify === undefined ? [] : Array.isArray(verify) ? verify : [verify]) {
      const checked: { uid: string } = yield call(apiPost, 'checkcode', check.params);
      params = { ...params, [check.uidField]: checked.uid };
    }
    const data: unknown = yield call(apiPost, path, params);
    yield put(formsActions.succeeded({ id, data }));
    if (after === 'register') {
      yield call(establishFromAnswer, data as LoginAnswer);
      yield put(uiActions.popupOpened({ name: 'registerSuccess' }));
    } else if (after === 'profile') {
      yield put(sessionActions.profileRequested());
    }
  } catch (err) {
    yield put(formsActions.failed({ id, error: toErrorInfo(err) }));
  }
}

export function* formsSaga(): SagaIterator {
  yield takeEvery(formsActions.submitted.type, submitForm);
}
