import { call, delay, put, race, select, take } from 'redux-saga/effects';
import type { PayloadAction } from '@reduxjs/toolkit';
import type { SagaIterator } from 'redux-saga';
import { ApiError, NOT_LOGGED_IN, apiPost, toErrorInfo } from '../../api';
import { configActions } from '../config/configSlice';
import type { SiteConfig } from '../config/types';
import { selectLoggedIn } from '../session/selectors';
import { sessionActions } from '../session/sessionSlice';
import { balanceActions, type BalanceInfo } from './balanceSlice';

/** Balance poll, spec section 9; the skin's balance_poll_ms overrides it. */
export const BALANCE_POLL_MS = 60_000;
/** Through the request layer, with the member's UserToken. */
export const BALANCE_PATH = 'user/getbalance';

const isNotLoggedIn = (err: unknown) => err instanceof ApiError && (err.status === NOT_LOGGED_IN || err.status === -601);

/** One fetch. Returns false when the server says the member is not logged in. */
export function* fetchBalance(): SagaIterator<boolean> {
  yield put(balanceActions.fetchStarted());
  try {
    const info: BalanceInfo = yield call(apiPost, BALANCE_PATH);
    yield put(balanceActions.fetched(info));
    return true;
  } catch (err) {
    if (isNotLoggedIn(err)) {
      yield put(balanceActions.notLoggedIn());
      return false;
    }
    yield put(balanceActions.fetchFailed(toErrorInfo(err)));
    return true; // a network hiccup: keep polling
  }
}

/** Polls while the member is logged in; a refresh request cuts the wait short. */
export function* balanceWatcher(pollMs: number): SagaIterator {
  for (;;) {
    const member: boolean = yield call(fetchBalance);
    if (member) {
      yield race({ tick: delay(pollMs), refresh: take(balanceActions.refreshRequested.type) });
    } else {
      yield take(balanceActions.refreshRequested.type);
    }
  }
}

/** Starts polling on login (restored or fresh) and stops on logout. */
export function* balanceSaga(): SagaIterator {
  const { payload }: PayloadAction<SiteConfig> = yield take(configActions.loaded.type);
  const pollMs = payload.balance_poll_ms > 0 ? payload.balance_poll_ms : BALANCE_POLL_MS;
  for (;;) {
    const loggedIn: boolean = yield select(selectLoggedIn);
    if (!loggedIn) yield take(sessionActions.loggedIn.type);
    yield race({ watch: call(balanceWatcher, pollMs), logout: take(sessionActions.loggedOut.type) });
    yield put(balanceActions.notLoggedIn());
  }
}
